"""The console's JSON API (documented in docs/console.md); the pages' charts read it.

Changes are POSTs with a JSON body and the ``X-CSRF-Token`` header (from ``GET /api/csrf``,
which also sets the matching cookie); a client that sends the console token in a header
needs no CSRF token. The app and user come from the path, never from the body.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from adk_memory_kit.console.data import ConsoleData, NotFoundError, split_list
from adk_memory_kit.console.security import CSRF_HEADER
from adk_memory_kit.errors import InvalidInputError

router = APIRouter()


async def _data(request: Request) -> ConsoleData:
    data: ConsoleData = request.app.state.console
    await data.start()
    return data


def _json(value: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(_plain(value), status_code=status)


def _plain(value: Any) -> Any:
    """JSON-friendly form of the adapter's and the kit's records."""
    if hasattr(value, "as_dict"):
        return _plain(value.as_dict())
    if hasattr(value, "model_dump"):  # pydantic models (e.g. ADK's MemoryEntry)
        return value.model_dump(mode="json", exclude_none=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


async def _body(request: Request) -> dict[str, Any]:
    """The JSON body of a change, after the read-only and CSRF rules (403 when broken)."""
    if request.app.state.read_only:
        raise HTTPException(403, "this console is read-only")
    if not request.app.state.guard.csrf_ok(request, request.headers.get(CSRF_HEADER)):
        raise HTTPException(403, "missing or invalid CSRF token; GET /api/csrf first")
    try:
        body = await request.json() if await request.body() else {}
    except ValueError as exc:
        raise InvalidInputError("the request body must be JSON") from exc
    if not isinstance(body, dict):
        raise InvalidInputError("the request body must be a JSON object")
    return body


def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{name} must be a non-empty string")
    return value.strip()


@router.get("/csrf")
async def csrf(request: Request) -> JSONResponse:
    return _json({"csrf_token": request.state.csrf})


@router.get("/features")
async def features(request: Request) -> JSONResponse:
    data = await _data(request)
    return _json({**data.features.as_dict(), "read_only": request.app.state.read_only})


@router.get("/apps")
async def apps(request: Request) -> JSONResponse:
    data = await _data(request)
    return _json({"apps": await data.apps()})


@router.get("/apps/{app}/users")
async def users(request: Request, app: str) -> JSONResponse:
    data = await _data(request)
    return _json({"app_name": app, "users": await data.users(app)})


@router.get("/apps/{app}/users/{user}/memories")
async def memories(
    request: Request,
    app: str,
    user: str,
    q: str = "",
    limit: int = 20,
    type: str = "",
    tag: str = "",
    as_of: str = "",
) -> JSONResponse:
    data = await _data(request)
    results = (
        await data.search(
            app,
            user,
            q,
            limit=max(1, min(limit, 200)),
            types=split_list(type),
            tags=split_list(tag),
            as_of=as_of.strip() or None,
        )
        if q.strip()
        else []
    )
    counts = await data.count_memories(app, user)
    return _json(
        {"app_name": app, "user_id": user, "query": q, "counts": counts, "memories": results}
    )


@router.post("/apps/{app}/users/{user}/memories/{memory_id}/delete")
async def delete_memory(request: Request, app: str, user: str, memory_id: str) -> JSONResponse:
    await _body(request)
    data = await _data(request)
    await data.delete_memory(app, user, memory_id)
    return _json({"deleted": memory_id})


@router.post("/apps/{app}/users/{user}/memories/{memory_id}/correct")
async def correct_memory(request: Request, app: str, user: str, memory_id: str) -> JSONResponse:
    body = await _body(request)
    data = await _data(request)
    by = body.get("by") or request.app.state.operator
    result = await data.correct_memory(
        app, user, memory_id, _text(body, "new_text"), _text(body, "reason"), str(by)
    )
    return _json({"corrected": result.old_id, "new_id": result.new_id, "result": result})


@router.post("/apps/{app}/users/{user}/memories/{memory_id}/pin")
async def pin_memory(request: Request, app: str, user: str, memory_id: str) -> JSONResponse:
    body = await _body(request)
    data = await _data(request)
    pinned = body.get("pinned", True)
    if not isinstance(pinned, bool):
        raise InvalidInputError("pinned must be true or false")
    await data.pin_memory(app, user, memory_id, _text(body, "reason"), pinned)
    return _json({"memory_id": memory_id, "pinned": pinned})


@router.get("/review")
async def review(
    request: Request, app: str = "", user: str = "", status: str = "pending", limit: int = 200
) -> JSONResponse:
    data = await _data(request)
    items = await data.review_items(
        app_name=app or None,
        user_id=user or None,
        status=None if status == "all" else status,
        limit=max(1, min(limit, 1000)),
    )
    return _json({"items": items})


@router.post("/apps/{app}/users/{user}/review/{item_id}")
async def decide(request: Request, app: str, user: str, item_id: int) -> JSONResponse:
    body = await _body(request)
    data = await _data(request)
    note = body.get("note")
    if note is not None and not isinstance(note, str):
        raise InvalidInputError("note must be a string")
    by = body.get("by") or request.app.state.operator
    item = await data.decide(
        app, user, item_id, _text(body, "decision"), by=str(by), note=(note or "").strip()
    )
    return _json({"item": item})


@router.get("/apps/{app}/users/{user}/data-map")
async def data_map(request: Request, app: str, user: str) -> JSONResponse:
    data = await _data(request)
    return _json(await data.data_map(app, user))


@router.post("/apps/{app}/users/{user}/forget")
async def forget(request: Request, app: str, user: str) -> JSONResponse:
    body = await _body(request)
    data = await _data(request)
    if body.get("confirm") != user:
        raise InvalidInputError("confirm must repeat the user id exactly")
    report = await data.forget(app, user)
    return _json({"report": report})


@router.get("/forgets")
async def forgets(request: Request, app: str = "", user: str = "") -> JSONResponse:
    data = await _data(request)
    pending = await data.pending_forgets(app or None)
    if user:
        pending = [p for p in pending if p.user_id == user]
    return _json({"pending": pending})


@router.get("/apps/{app}/users/{user}/sessions")
async def sessions(request: Request, app: str, user: str) -> JSONResponse:
    data = await _data(request)
    return _json({"sessions": await data.user_sessions(app, user)})


@router.get("/apps/{app}/users/{user}/sessions/{session_id}/events")
async def session_events(request: Request, app: str, user: str, session_id: str) -> JSONResponse:
    data = await _data(request)
    events = await data.session_events(app, user, session_id)
    if events is None:
        raise NotFoundError("no such session for this user in this app")
    return _json({"events": events})


@router.get("/apps/{app}/users/{user}/sessions/{session_id}/trace")
async def trace(request: Request, app: str, user: str, session_id: str) -> JSONResponse:
    data = await _data(request)
    found = await data.trace(app, user, session_id)
    if found is None:
        return _json({"available": False, "entries": []})
    return _json({"available": True, **found.as_dict()})


@router.get("/costs")
async def all_costs(request: Request, days: int = 14) -> JSONResponse:
    data = await _data(request)
    report = await data.costs(None, days=days)
    if report is None:
        return _json({"available": False})
    return _json({"available": True, **report.as_dict()})


@router.get("/apps/{app}/costs")
async def costs(request: Request, app: str, user: str = "", days: int = 14) -> JSONResponse:
    data = await _data(request)
    report = await data.costs(app, user_id=user or None, days=days)
    if report is None:
        return _json({"available": False})
    return _json({"available": True, **report.as_dict()})
