"""The console's adapter against the APIs other issues fix but this kit version lacks.

These are contract tests of ``console/data.py`` and the pages, NOT tests of the features:
the small classes below implement only the signatures that issue 15 (``EpisodicLog.trace``,
``cost_summary``) and issue 16 (``correct_memory``; ``pin_memory`` is this console's name)
fix, so the console's wiring (argument passing, scoping, rendering, per-day costs) is
checked now. Once those branches merge, the real ``EpisodicLog`` and
``PgVectorMemoryService`` replace them in ``test_console_browser.py`` and these doubles go.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from adk_memory_kit.console import create_app
from adk_memory_kit.memory.service import PgVectorMemoryService
from tests.console.browser import chromium, missing_browser, serve

pytestmark = pytest.mark.slow

NOW = datetime.now(timezone.utc)


class ContractLog:
    """Issue 15's reading API over a fixed list of entries (a contract double)."""

    def __init__(self, entries: list[dict]) -> None:
        self.entries = entries
        self.calls: list[tuple] = []

    async def trace(self, app_name, user_id, session_id):
        self.calls.append(("trace", app_name, user_id, session_id))
        return [
            e
            for e in self.entries
            if (e["app_name"], e["user_id"], e["session_id"]) == (app_name, user_id, session_id)
        ]

    async def cost_summary(self, app_name, user_id=None, session_id=None, since=None):
        groups: dict[tuple, dict] = {}
        for e in self.entries:
            if e["app_name"] != app_name or (user_id and e["user_id"] != user_id):
                continue
            if e["kind"] != "model_call" or (since is not None and e["time"] < since):
                continue
            key = (e["session_id"], e["user_id"], e["agent"], e["name"])
            row = groups.setdefault(
                key,
                {
                    "session_id": key[0],
                    "user_id": key[1],
                    "agent": key[2],
                    "model": key[3],
                    "calls": 0,
                    "input_tokens": 0,
                    "output_tokens": 0,
                    "cost_usd": 0.0,
                },
            )
            row["calls"] += 1
            row["input_tokens"] += e["input_tokens"] or 0
            row["output_tokens"] += e["output_tokens"] or 0
            row["cost_usd"] += e["cost_usd"] or 0.0
        return list(groups.values())


def _entry(kind, name, days_ago, cost, session="s1", user="alice", agent="concierge"):
    return {
        "app_name": "shop",
        "user_id": user,
        "session_id": session,
        "kind": kind,
        "agent": agent,
        "name": name,
        "input_tokens": 100 if cost else None,
        "output_tokens": 20 if cost else None,
        "cost_usd": cost,
        "time": NOW - timedelta(days=days_ago, seconds=1),
    }


@pytest.fixture
def log():
    return ContractLog(
        [
            _entry("model_call", "gemini-2.5-flash", 2, 0.002),
            _entry("tool_call", "book_table", 2, None),
            _entry("tool_error", "charge_card", 2, None),
            _entry("model_call", "gemini-2.5-pro", 0, 0.010, session="s2"),
            _entry(
                "model_call",
                "gemini-2.5-flash",
                0,
                0.001,
                session="s3",
                user="bob",
                agent="rebooker",
            ),
        ]
    )


def test_trace_page_shows_the_session_timeline_in_order(db_url, embedder, log):
    with TestClient(create_app(db_url, embedder=embedder, episodic_log=log)) as client:
        assert client.get("/api/features").json()["episodic"] is True
        page = client.get("/apps/shop/users/alice/sessions/s1").text
        rows = [k for k in ("model_call", "tool_call", "tool_error") if k in page]
        assert rows == ["model_call", "tool_call", "tool_error"]
        assert page.index("gemini-2.5-flash") < page.index("book_table") < page.index("charge_card")
        assert "unknown" in page  # a tool call has no cost: shown as unknown, never 0
        api = client.get("/api/apps/shop/users/alice/sessions/s1/trace").json()
        assert api["available"] and [e["kind"] for e in api["entries"]] == [
            "model_call",
            "tool_call",
            "tool_error",
        ]
        assert log.calls[-1] == ("trace", "shop", "alice", "s1")


def test_costs_per_day_model_and_agent(db_url, embedder, log):
    with TestClient(create_app(db_url, embedder=embedder, episodic_log=log)) as client:
        report = client.get("/api/apps/shop/costs", params={"days": 7}).json()
        assert report["available"] and len(report["days"]) == 7
        per_day = {d["day"]: d["cost_usd"] for d in report["days"]}
        assert per_day[(NOW - timedelta(days=2, seconds=1)).date().isoformat()] == pytest.approx(
            0.002
        )
        assert per_day[(NOW - timedelta(seconds=1)).date().isoformat()] == pytest.approx(0.011)
        assert report["total_cost_usd"] == pytest.approx(0.013)
        models = {r["model"]: r["cost_usd"] for r in report["by"]["model"]}
        assert models == pytest.approx({"gemini-2.5-pro": 0.010, "gemini-2.5-flash": 0.003})
        agents = {r["agent"] for r in report["by"]["agent"]}
        assert agents == {"concierge", "rebooker"}
        alice = client.get("/api/apps/shop/costs", params={"user": "alice"}).json()
        assert alice["total_cost_usd"] == pytest.approx(0.012)
        page = client.get("/apps/shop/costs").text
        assert page.count("data-chart-src=") == 3 and "gemini-2.5-pro" in page
        assert client.get("/api/apps/shop/costs", params={"days": 0}).status_code == 400


class RecordingMemory(PgVectorMemoryService):
    """The real service plus issue 16's ``correct_memory`` and a ``pin_memory``, which only
    record their arguments (a contract double for the console's wiring)."""

    calls: list[dict] = []

    async def correct_memory(self, *, app_name, user_id, memory_id, new_text, reason, by=None):
        self.calls.append(
            {
                "op": "correct",
                "app": app_name,
                "user": user_id,
                "id": memory_id,
                "text": new_text,
                "reason": reason,
                "by": by,
            }
        )

    async def pin_memory(self, *, app_name, user_id, memory_id, reason, pinned=True):
        self.calls.append(
            {
                "op": "pin",
                "app": app_name,
                "user": user_id,
                "id": memory_id,
                "reason": reason,
                "pinned": pinned,
            }
        )


def test_correct_and_pin_pass_the_urls_app_and_user(db_url, embedder):
    memory = RecordingMemory(db_url, embedder=embedder)
    app = create_app(db_url, memory_service=memory, operator="dana")
    with TestClient(app) as client:
        features = client.get("/api/features").json()
        assert features["correct"] and features["pin"]
        token = client.get("/api/csrf").json()["csrf_token"]
        done = client.post(
            "/apps/shop/users/alice/memories/m-1/correct",
            data={"csrf_token": token, "new_text": "vegan", "reason": "she said so"},
            follow_redirects=False,
        )
        assert done.status_code == 303 and "done=corrected" in done.headers["location"]
        client.post(
            "/api/apps/shop/users/bob/memories/m-2/pin",
            json={"reason": "billing address", "pinned": False},
            headers={"X-CSRF-Token": token},
        )
        missing = client.post(
            "/apps/shop/users/alice/memories/m-1/correct",
            data={"csrf_token": token, "new_text": "x"},
        )
        assert missing.status_code == 400 and "a reason is required" in missing.text
        client.portal.call(memory.close)
    assert memory.calls == [
        {
            "op": "correct",
            "app": "shop",
            "user": "alice",
            "id": "m-1",
            "text": "vegan",
            "reason": "she said so",
            "by": "dana",
        },
        {
            "op": "pin",
            "app": "shop",
            "user": "bob",
            "id": "m-2",
            "reason": "billing address",
            "pinned": False,
        },
    ]


@pytest.mark.skipif(missing_browser() is not None, reason=f"browser: {missing_browser()}")
def test_cost_charts_draw_in_chromium_under_the_csp(db_url, embedder, log):
    """console.js reads the costs JSON API and Chart.js draws it, with no CSP violation."""
    app = create_app(db_url, embedder=embedder, episodic_log=log)
    with serve(app) as base, chromium() as browser:
        page = browser.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        with page.expect_response(lambda r: "/api/apps/shop/costs" in r.url) as costs:
            page.goto(f"{base}/apps/shop/costs?days=7")
        assert costs.value.status == 200
        page.wait_for_load_state("networkidle")
        drawn = page.evaluate(
            "() => [...document.querySelectorAll('canvas[data-chart-src]')]"
            ".map(c => window.Chart.getChart(c) ? window.Chart.getChart(c).data.labels.length : 0)"
        )
        assert drawn == [7, 2, 2]  # 7 days, 2 models, 2 agents
        assert problems == []
