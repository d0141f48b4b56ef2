"""The console's HTML pages (server-rendered; every one readable without JavaScript).

Changes are HTML forms posted to the page's own URL family; each answers with a redirect
back to the page (Post/Redirect/Get), so reloading never repeats a change. The app and
user of every change come from the URL path, never from the form.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException

from adk_memory_kit.console.data import ConsoleData, NotFoundError, split_list
from adk_memory_kit.console.render import Renderer, _seg
from adk_memory_kit.console.security import TOKEN_COOKIE, cookie_path, safe_next
from adk_memory_kit.console.user_data import (
    add_user_memory,
    edit_user_memory,
    export_user,
    list_user_memories,
    session_state,
    user_profile,
    working_memory,
)
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.browse import STATES
from adk_memory_kit.memory.hygiene import MEMORY_TYPES

router = APIRouter()

_STATUSES = ("pending", "approved", "rejected", "all")
#: the memory list's sort keys, as the page names them
LIST_SORTS = {"time": "time", "importance": "importance", "last_used": "last use"}


async def _data(request: Request) -> ConsoleData:
    data: ConsoleData = request.app.state.console
    await data.start()
    return data


def _page(request: Request, template: str, **context: Any) -> HTMLResponse:
    renderer: Renderer = request.app.state.renderer
    return HTMLResponse(renderer.page(request, template, **context))


async def _mutation_form(request: Request) -> dict[str, str]:
    """The posted form, after the read-only and CSRF rules (403 when broken)."""
    if request.app.state.read_only:
        raise HTTPException(403, "this console is read-only")
    form = await request.form()
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    if not request.app.state.guard.csrf_ok(request, fields.get("csrf_token")):
        raise HTTPException(403, "missing or invalid CSRF token; reload the page and retry")
    return fields


def _user_url(request: Request, app: str, user: str, *suffix: str) -> str:
    root = request.scope.get("root_path", "")
    tail = "".join("/" + _seg(s) for s in suffix)
    return f"{root}/apps/{_seg(app)}/users/{_seg(user)}{tail}"


def _back(request: Request, fields: dict[str, str], default: str, done: str) -> RedirectResponse:
    """Redirect to the page the form came from (same site only), with a fixed message code."""
    root = request.scope.get("root_path", "")
    asked = fields.get("return_to", "")
    same_site = asked and safe_next(asked, root) == asked and asked.startswith(root + "/")
    target = asked if same_site else default
    sep = "&" if "?" in target else "?"
    return RedirectResponse(f"{target}{sep}done={done}", status_code=303)


def _require(fields: dict[str, str], name: str, label: str) -> str:
    value = fields.get(name, "").strip()
    if not value:
        raise InvalidInputError(f"{label} is required")
    return value


# ---------------------------------------------------------------------- login
@router.get("/login", response_class=HTMLResponse)
async def login_page(request: Request, next: str = "") -> HTMLResponse:
    return _page(request, "login.html", next=next, failed=False, nav="login")


@router.post("/login")
async def login(request: Request) -> Response:
    form = await request.form()
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    guard = request.app.state.guard
    root = request.scope.get("root_path", "")
    if not guard.csrf_ok(request, fields.get("csrf_token")):
        raise HTTPException(403, "missing or invalid CSRF token; reload the page and retry")
    if guard.token is None or not guard.token_ok(fields.get("token")):
        body = request.app.state.renderer.page(
            request, "login.html", next=fields.get("next", ""), failed=True, nav="login"
        )
        return HTMLResponse(body, status_code=401)
    response = RedirectResponse(safe_next(fields.get("next"), root), status_code=303)
    response.set_cookie(
        TOKEN_COOKIE,
        guard.token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path=cookie_path(request),
    )
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    fields = await request.form()
    if not request.app.state.guard.csrf_ok(request, fields.get("csrf_token")):
        raise HTTPException(403, "missing or invalid CSRF token; reload the page and retry")
    root = request.scope.get("root_path", "")
    response = RedirectResponse(f"{root}/login?done=logged_out", status_code=303)
    response.delete_cookie(TOKEN_COOKIE, path=cookie_path(request))
    return response


# ---------------------------------------------------------------------- apps and users
@router.get("/", response_class=HTMLResponse)
async def apps_page(request: Request) -> HTMLResponse:
    data = await _data(request)
    return _page(request, "apps.html", apps=await data.apps(), nav="apps")


@router.get("/open")
async def open_app(request: Request, app: str = "") -> Response:
    """The "open an app by name" form of the apps page (a GET form cannot build a path)."""
    root = request.scope.get("root_path", "")
    if not app.strip():
        return RedirectResponse(f"{root}/", status_code=303)
    return RedirectResponse(f"{root}/apps/{_seg(app.strip())}", status_code=303)


@router.get("/apps/{app}", response_class=HTMLResponse)
async def app_page(request: Request, app: str) -> HTMLResponse:
    data = await _data(request)
    return _page(request, "app.html", app=app, users=await data.users(app), nav="apps")


@router.get("/apps/{app}/users/{user}", response_class=HTMLResponse)
async def user_page(
    request: Request,
    app: str,
    user: str,
    q: str = "",
    limit: int = 20,
    type: str = "",
    tag: str = "",
    as_of: str = "",
    sort: str = "time",
    order: str = "desc",
    contains: str = "",
    state: str = "current",
    page: int = 1,
) -> HTMLResponse:
    """Search results for ``q``; without one, the user's memories listed (paged, sorted,
    filtered by type, tag, text and state)."""
    data = await _data(request)
    limit = max(1, min(limit, 200))
    page = max(1, page)
    if order not in ("asc", "desc"):
        raise InvalidInputError("order must be asc or desc")
    listing = None
    results = []
    if q.strip():
        results = await data.search(
            app,
            user,
            q,
            limit=limit,
            types=split_list(type),
            tags=split_list(tag),
            as_of=as_of.strip() or None,
        )
    else:
        listing = await list_user_memories(
            data,
            app,
            user,
            sort=sort,
            descending=order == "desc",
            types=split_list(type),
            tags=split_list(tag),
            contains=contains,
            state=state,
            offset=(page - 1) * limit,
            limit=limit,
        )
    context = {
        "app": app,
        "user": user,
        "q": q,
        "limit": limit,
        "type": type,
        "tag": tag,
        "as_of": as_of,
        "sort": sort,
        "order": order,
        "contains": contains,
        "state": state,
        "page": page,
        "sorts": LIST_SORTS,
        "states": STATES,
        "listing": listing,
        "memory_types": MEMORY_TYPES,
        "results": results,
        "score_max": _score_max(results),
        "counts": await data.count_memories(app, user),
        "reviews": await data.review_items(app_name=app, user_id=user, status=None),
        "sessions": await data.user_sessions(app, user),
        "profile": await user_profile(data, app, user),
        "nav": "apps",
    }
    if request.headers.get("hx-request") and request.headers.get("hx-target") == "results":
        return _page(request, "_results.html", **context)
    return _page(request, "user.html", **context)


def _score_max(results: list) -> dict[str, float]:
    """The scale of each score part's bar: its largest value among the results (dense
    similarity on 0..1)."""
    top = {"dense": 1.0}
    for part in ("bm25", "exact", "fused"):
        values = [r.scores.get(part) or 0.0 for r in results]
        top[part] = max([v for v in values if v > 0], default=1.0)
    return top


# ---------------------------------------------------------------------- memory changes
@router.post("/apps/{app}/users/{user}/memories/{memory_id}/delete")
async def delete_memory(request: Request, app: str, user: str, memory_id: str) -> Response:
    fields = await _mutation_form(request)
    data = await _data(request)
    await data.delete_memory(app, user, memory_id)
    return _back(request, fields, _user_url(request, app, user), "deleted")


@router.post("/apps/{app}/users/{user}/memories/{memory_id}/correct")
async def correct_memory(request: Request, app: str, user: str, memory_id: str) -> Response:
    fields = await _mutation_form(request)
    data = await _data(request)
    new_text = _require(fields, "new_text", "the corrected text")
    reason = _require(fields, "reason", "a reason")
    by = fields.get("by", "").strip() or request.app.state.operator
    await data.correct_memory(app, user, memory_id, new_text, reason, by)
    return _back(request, fields, _user_url(request, app, user), "corrected")


@router.post("/apps/{app}/users/{user}/memories/{memory_id}/pin")
async def pin_memory(request: Request, app: str, user: str, memory_id: str) -> Response:
    fields = await _mutation_form(request)
    data = await _data(request)
    reason = _require(fields, "reason", "a reason")
    pinned = fields.get("pinned", "1") != "0"
    await data.pin_memory(app, user, memory_id, reason, pinned)
    return _back(request, fields, _user_url(request, app, user), "pinned" if pinned else "unpinned")


def _importance(fields: dict[str, str]) -> float:
    raw = fields.get("importance", "").strip() or "0.5"
    try:
        return float(raw)
    except ValueError:
        raise InvalidInputError("importance must be a number between 0 and 1") from None


@router.post("/apps/{app}/users/{user}/memories")
async def add_memory(request: Request, app: str, user: str) -> Response:
    """A memory written by hand: routed like the agent's own ``remember`` (sensitive text is
    refused, a behaviour change goes to review), then stored through ``add_memory``."""
    fields = await _mutation_form(request)
    data = await _data(request)
    outcome = await add_user_memory(
        data,
        app,
        user,
        _require(fields, "text", "the memory's text"),
        memory_type=fields.get("memory_type", "fact") or "fact",
        tags=split_list(fields.get("tags", "")),
        importance=_importance(fields),
        by=fields.get("by", "").strip() or request.app.state.operator,
    )
    done = {"long_term": "added", "review": "added_review", "dropped": "added_dropped"}
    return _back(
        request, fields, _user_url(request, app, user), done.get(outcome.home, "added_rejected")
    )


@router.post("/apps/{app}/users/{user}/memories/{memory_id}/edit")
async def edit_memory(request: Request, app: str, user: str, memory_id: str) -> Response:
    """Type, tags and importance changed as a correction (the old version is kept)."""
    fields = await _mutation_form(request)
    data = await _data(request)
    await edit_user_memory(
        data,
        app,
        user,
        memory_id,
        memory_type=_require(fields, "memory_type", "the type"),
        tags=split_list(fields.get("tags", "")),
        importance=_importance(fields),
        reason=_require(fields, "reason", "a reason"),
        by=fields.get("by", "").strip() or request.app.state.operator,
    )
    return _back(request, fields, _user_url(request, app, user), "edited")


@router.get("/apps/{app}/users/{user}/export")
async def export(request: Request, app: str, user: str) -> Response:
    """Everything the kit holds about the user, as one JSON document (a download)."""
    data = await _data(request)
    document = await export_user(data, app, user)
    body = json.dumps(document, ensure_ascii=False, indent=2, default=str)
    name = re.sub(r"[^A-Za-z0-9._-]", "_", f"{app}-{user}")[:120]
    return Response(
        body,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="{name}.json"'},
    )


# ---------------------------------------------------------------------- review queue
@router.get("/review", response_class=HTMLResponse)
async def review_page(
    request: Request, app: str = "", user: str = "", status: str = "pending"
) -> HTMLResponse:
    data = await _data(request)
    if status not in _STATUSES:
        raise InvalidInputError("status must be pending, approved, rejected or all")
    items = await data.review_items(
        app_name=app or None,
        user_id=user or None,
        status=None if status == "all" else status,
    )
    return _page(
        request, "review.html", items=items, app=app, user=user, status=status, nav="review"
    )


@router.post("/apps/{app}/users/{user}/review/{item_id}")
async def decide(request: Request, app: str, user: str, item_id: int) -> Response:
    fields = await _mutation_form(request)
    data = await _data(request)
    decision = fields.get("decision", "")
    by = fields.get("by", "").strip() or request.app.state.operator
    await data.decide(app, user, item_id, decision, by=by, note=fields.get("note", "").strip())
    root = request.scope.get("root_path", "")
    default = f"{root}/review?{urlencode({'app': app})}"
    done = {"approve": "approved", "approve_app": "approved_app", "revoke": "revoked"}
    return _back(request, fields, default, done.get(decision, "rejected"))


# ---------------------------------------------------------------------- forget
@router.get("/apps/{app}/users/{user}/forget", response_class=HTMLResponse)
async def forget_page(request: Request, app: str, user: str) -> HTMLResponse:
    data = await _data(request)
    found = await data.data_map(app, user)
    pending = [p for p in await data.pending_forgets(app) if p.user_id == user]
    return _page(
        request,
        "forget.html",
        app=app,
        user=user,
        map=found,
        pending=pending,
        mismatch=False,
        nav="forget",
    )


@router.post("/apps/{app}/users/{user}/forget")
async def forget(request: Request, app: str, user: str) -> Response:
    fields = await _mutation_form(request)
    data = await _data(request)
    if fields.get("confirm", "") != user:
        found = await data.data_map(app, user)
        body = request.app.state.renderer.page(
            request,
            "forget.html",
            app=app,
            user=user,
            map=found,
            pending=[p for p in await data.pending_forgets(app) if p.user_id == user],
            mismatch=True,
            nav="forget",
        )
        return HTMLResponse(body, status_code=400)
    report = await data.forget(app, user)
    done = "forgotten" if report.verified else "forget_unverified"
    return RedirectResponse(f"{_user_url(request, app, user, 'forget')}?done={done}", 303)


@router.get("/forgets", response_class=HTMLResponse)
async def forgets_page(request: Request, app: str = "") -> HTMLResponse:
    data = await _data(request)
    pending = await data.pending_forgets(app or None)
    return _page(request, "forgets.html", pending=pending, app=app, nav="forget")


# ---------------------------------------------------------------------- traces and costs
@router.get("/apps/{app}/users/{user}/sessions/{session_id}", response_class=HTMLResponse)
async def trace_page(request: Request, app: str, user: str, session_id: str) -> HTMLResponse:
    data = await _data(request)
    events = await data.session_events(app, user, session_id)
    trace = await data.trace(app, user, session_id)
    if events is None and not (trace and trace.entries):
        raise NotFoundError("no such session for this user in this app")
    state = await session_state(data, app, user, session_id) or {}
    return _page(
        request,
        "trace.html",
        app=app,
        user=user,
        session_id=session_id,
        events=events or [],
        trace=trace,
        wm=working_memory(state),
        state_keys=sorted(state),
        nav="apps",
    )


@router.get("/costs", response_class=HTMLResponse)
async def all_costs_page(request: Request, days: int = 14) -> HTMLResponse:
    data = await _data(request)
    report = await data.costs(None, days=days)
    return _page(request, "costs.html", app="", user="", days=days, report=report, nav="costs")


@router.get("/apps/{app}/costs", response_class=HTMLResponse)
async def costs_page(request: Request, app: str, user: str = "", days: int = 14) -> HTMLResponse:
    data = await _data(request)
    report = await data.costs(app, user_id=user or None, days=days)
    return _page(request, "costs.html", app=app, user=user, days=days, report=report, nav="costs")
