"""The console behind DNS rebinding: the Host allow-list on every route (enumerated from the
app, not listed by hand), the Origin / Referer check on every change, ``--allowed-host``
for a proxy, and the same rules through a real uvicorn server. Real embedded Postgres.
"""

from __future__ import annotations

import re

import httpx
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Mount

from adk_memory_kit.console import create_app
from adk_memory_kit.console.security import host_name
from adk_memory_kit.routing.review_queue import ReviewQueue
from tests.console.browser import serve
from tests.console.seed import seed

pytestmark = pytest.mark.slow

FOREIGN_HOSTS = [
    "evil.example",
    "evil.example:8766",
    "127.0.0.1.nip.io:8766",
    "localhost.evil.example",
    "[::2]:8766",
    "10.0.0.7",
    "",
    "127.0.0.1:notaport",
]
OWN_HOSTS = ["127.0.0.1", "127.0.0.1:8766", "localhost:8766", "LOCALHOST", "[::1]:8766"]
FOREIGN_ORIGINS = [
    {"origin": "http://evil.example:8766"},
    {"origin": "null"},
    {"origin": "http://127.0.0.1.evil.example"},
    {"origin": "file://"},
    {"referer": "http://evil.example/attack.html"},
    {"origin": "http://127.0.0.1:8766", "sec-fetch-site": "cross-site"},
]


@pytest.fixture(scope="module")
async def world(memory, sessions, db_url):
    queue = ReviewQueue(db_url)
    try:
        return await seed(memory, sessions, queue)
    finally:
        await queue.close()


@pytest.fixture
def make_client(db_url, embedder):
    opened: list[TestClient] = []

    def build(base_url: str = "http://127.0.0.1", **options) -> TestClient:
        options.setdefault("operator", "dana")
        client = TestClient(create_app(db_url, embedder=embedder, **options), base_url=base_url)
        client.__enter__()
        opened.append(client)
        return client

    yield build
    for client in opened:
        client.__exit__(None, None, None)


def _walk(routes, prefix: str = ""):
    """(prefix + path, methods) of every route; FastAPI >= 0.16x keeps an included router
    as one entry holding the router and its prefix. An unknown kind of route fails the test
    instead of being skipped."""
    for route in routes:
        if isinstance(route, Mount):
            yield prefix + route.path + "/console.css", {"GET"}
        elif isinstance(route, APIRoute):
            yield prefix + route.path, set(route.methods)
        elif hasattr(route, "original_router"):  # an include_router entry
            yield from _walk(route.original_router.routes, prefix + route.include_context.prefix)
        else:
            raise AssertionError(f"a route the test cannot enumerate: {type(route).__name__}")


def every_route(app, world) -> list[tuple[str, str]]:
    """(method, concrete path) of every route the app serves, read from the app itself."""
    values = {"app": world.app, "user": "alice", "session_id": world.sessions["alice"][0]}
    found: list[tuple[str, str]] = []
    for template, methods in _walk(app.routes):
        path = re.sub(r"\{(\w+)(:\w+)?\}", lambda m: str(values.get(m.group(1), "1")), template)
        for method in sorted(methods - {"HEAD"}):
            found.append((method, path))
    return found


def test_a_foreign_host_gets_nothing_on_any_route(world, make_client):
    client = make_client(apps=[world.app])
    routes = every_route(client.app, world)
    assert len(routes) >= 30 and any(m == "POST" for m, _ in routes)
    token = client.get("/api/csrf").json()["csrf_token"]
    for method, path in routes:
        for host in FOREIGN_HOSTS:
            response = client.request(
                method,
                path,
                headers={"host": host, "x-csrf-token": token},
                data={"csrf_token": token},
                follow_redirects=False,
            )
            assert response.status_code == 400, (method, path, host, response.status_code)
            assert "unknown Host" in response.text
            assert "set-cookie" not in response.headers
            for word in (world.app, "alice", "bob", host or "\0"):
                assert word not in response.text, (method, path, host)
            assert response.headers["cache-control"] == "no-store"


def test_own_names_pass_the_host_check_on_every_route(world, make_client):
    client = make_client(apps=[world.app])
    for method, path in every_route(client.app, world):
        for host in OWN_HOSTS:
            response = client.request(method, path, headers={"host": host}, follow_redirects=False)
            assert "unknown Host" not in response.text, (method, path, host)
            if method == "GET" and path != "/open":
                assert response.status_code == 200, (path, host, response.status_code)


def test_a_rebound_page_can_neither_read_nor_change(world, make_client):
    """The attack of the issue: a page on a rebound name reads, fetches a CSRF token, and
    forgets. Every step is refused and alice's memory stays."""
    client = make_client(apps=[world.app])
    rebound = {"host": "attacker.example:8766", "origin": "http://attacker.example:8766"}
    before = client.get(f"/api/apps/{world.app}/users/alice/memories").json()["counts"]
    assert client.get("/api/apps", headers=rebound).status_code == 400
    assert client.get(f"/api/apps/{world.app}/users", headers=rebound).status_code == 400
    stolen = client.get("/api/csrf", headers=rebound)
    assert stolen.status_code == 400 and "csrf_token" not in stolen.text
    # even with a valid token (as if it had one), the change is refused
    token = client.get("/api/csrf").json()["csrf_token"]
    for path in (
        f"/api/apps/{world.app}/users/alice/forget",
        f"/apps/{world.app}/users/alice/forget",
    ):
        done = client.post(
            path,
            headers={**rebound, "x-csrf-token": token},
            data={"csrf_token": token, "confirm": "alice"},
            follow_redirects=False,
        )
        assert done.status_code == 400
    after = client.get(f"/api/apps/{world.app}/users/alice/memories").json()["counts"]
    assert after == before and sum(after.values()) > 0


def test_every_change_checks_origin_and_referer(world, make_client):
    client = make_client(apps=[world.app])
    token = client.get("/api/csrf").json()["csrf_token"]
    changes = [(m, p) for m, p in every_route(client.app, world) if m != "GET"]
    assert len(changes) >= 10
    for method, path in changes:
        for headers in FOREIGN_ORIGINS:
            response = client.request(
                method,
                path,
                headers={**headers, "x-csrf-token": token},
                data={"csrf_token": token},
                follow_redirects=False,
            )
            assert response.status_code == 403, (path, headers, response.status_code)
            assert "cross-origin" in response.text
    # reading is not a change: a foreign Origin on a GET is answered (the Host decides)
    assert client.get("/api/apps", headers={"origin": "http://evil.example"}).status_code == 200


def test_same_origin_changes_go_through(world, make_client):
    client = make_client(apps=[world.app])
    token = client.get("/api/csrf").json()["csrf_token"]
    found = client.get(
        f"/api/apps/{world.app}/users/bob/memories", params={"q": "terminal", "limit": 50}
    ).json()["memories"]
    target = found[0]["id"]
    url = f"/api/apps/{world.app}/users/bob/memories/{target}/pin"
    for headers in (
        {"origin": "http://127.0.0.1"},
        {"origin": "http://localhost:8766", "sec-fetch-site": "same-origin"},
        {"referer": "http://127.0.0.1/apps/x/users/bob"},
        {},  # a script without either header: the CSRF token decides
    ):
        response = client.post(
            url,
            headers={**headers, "x-csrf-token": token},
            json={"reason": "kept for the test", "pinned": True},
        )
        assert response.status_code == 200, (headers, response.text)


def test_allowed_host_for_a_proxy(world, make_client):
    client = make_client(
        base_url="https://console.corp.example",
        apps=[world.app],
        allowed_hosts=["Console.Corp.Example"],
    )
    assert client.get("/api/apps").status_code == 200
    assert client.get("/api/apps", headers={"host": "evil.example"}).status_code == 400
    token = client.get("/api/csrf").json()["csrf_token"]
    review = client.post(
        f"/api/apps/{world.app}/users/bob/review/999999",
        headers={"origin": "https://console.corp.example", "x-csrf-token": token},
        json={"decision": "approve"},
    )
    assert review.status_code != 403  # past the origin check (the id is unknown)
    # "*" turns the Host check off; a change must then come from the request's own Host
    anywhere = make_client(base_url="http://any.example", allowed_hosts=["*"])
    assert anywhere.get("/api/apps").status_code == 200
    token = anywhere.get("/api/csrf").json()["csrf_token"]
    blocked = anywhere.post(
        "/api/apps/a/users/b/forget",
        headers={"origin": "http://other.example", "x-csrf-token": token},
        json={},
    )
    assert blocked.status_code == 403


def test_cli_allows_the_bound_host_and_each_allowed_host(world, db_url):
    from adk_memory_kit.cli import build_parser
    from adk_memory_kit.cli.console import build_app

    args = build_parser().parse_args(
        ["console", "--host", "10.1.2.3", "--token", "t0k", "--allowed-host", "mem.example"]
    )
    args.db_url = db_url
    app = build_app(args)
    auth = {"authorization": "Bearer t0k"}
    with TestClient(app, base_url="http://10.1.2.3:8766") as client:
        assert client.get("/api/features", headers=auth).status_code == 200
        for host, status in (("mem.example", 200), ("localhost", 200), ("evil.example", 400)):
            got = client.get("/api/features", headers={**auth, "host": host})
            assert got.status_code == status, host
        client.portal.call(app.state.console.close)
    wildcard = build_parser().parse_args(["console", "--host", "0.0.0.0", "--token", "t"])
    wildcard.db_url = db_url
    assert "0.0.0.0" not in build_app(wildcard).state.hosts.allowed


def test_host_parsing():
    assert host_name("[::1]:8766") == "::1"
    assert host_name("Example.COM.:80") == "example.com"
    assert host_name("a:b") is None and host_name("[::1") is None and host_name("") is None
    assert host_name("x" * 1000) is None


def test_a_real_server_refuses_a_foreign_host(world, db_url, embedder):
    app = create_app(db_url, embedder=embedder, apps=[world.app])
    with serve(app) as base:
        with httpx.Client(base_url=base, timeout=30) as http:
            assert http.get("/api/apps").status_code == 200
            bad = http.get("/api/apps", headers={"host": "rebound.example"})
            assert bad.status_code == 400 and world.app not in bad.text
            token = http.get("/api/csrf").json()["csrf_token"]
            refused = http.post(
                f"/api/apps/{world.app}/users/alice/forget",
                headers={"origin": "http://rebound.example", "x-csrf-token": token},
                json={"confirm": "alice"},
            )
            assert refused.status_code == 403
