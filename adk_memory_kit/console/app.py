"""``create_app``: the memory console as a FastAPI app (standalone or mounted)."""

from __future__ import annotations

import contextlib
import getpass
import logging
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from adk_memory_kit.console.data import ConsoleData
from adk_memory_kit.console.render import Renderer
from adk_memory_kit.console.security import (
    CSRF_COOKIE,
    SECURITY_HEADERS,
    Guard,
    HostRules,
    cookie_path,
)
from adk_memory_kit.core.db_errors import describe, translate
from adk_memory_kit.errors import (
    DatabaseUnavailableError,
    InvalidInputError,
    MemoryKitError,
    MemoryNotFoundError,
)

STATIC_DIR = Path(__file__).parent / "static"
logger = logging.getLogger(__name__)


def create_app(
    db_url: str | None = None,
    *,
    token: str | None = None,
    read_only: bool = False,
    apps: Sequence[str] = (),
    operator: str | None = None,
    memory_service: Any = None,
    session_service: Any = None,
    review_queue: Any = None,
    episodic_log: Any = None,
    embedder: Any = None,
    allowed_hosts: Sequence[str] = (),
) -> FastAPI:
    """The memory console as a FastAPI app.

    Args:
        db_url: the kit's database (``None``: ``ADK_MEMORY_KIT_DB_URL`` or the embedded
            server). Connections open on the first request.
        token: when set, every request must carry it (header or login cookie).
        read_only: hide every change (correct, delete, pin, review decisions, forget) and
            refuse them with 403.
        apps: app names listed even when the kit cannot enumerate apps.
        operator: default reviewer name for decisions and corrections (default: OS user).
        memory_service / session_service / review_queue / episodic_log: services to share
            instead of opening new ones (e.g. when mounted in the agent's own server).
        embedder: the embedder for the memory service the console opens (default: MiniLM);
            it must be the one the memories were written with.
        allowed_hosts: host names (besides the loopback names) a request's ``Host`` may
            carry: the host the server is bound to and a proxy's public name. Any other
            ``Host`` is refused (DNS rebinding); ``"*"`` turns the check off (only behind
            a proxy that checks ``Host`` itself).

    Mount it with ``parent.mount("/console", create_app(...))``; call
    ``await app.state.console.close()`` at shutdown when mounted (a mounted app's lifespan
    does not run).
    """
    data = ConsoleData(
        db_url,
        memory_service=memory_service,
        session_service=session_service,
        review_queue=review_queue,
        episodic_log=episodic_log,
        apps=apps,
        embedder=embedder,
    )
    guard = Guard(token)
    if isinstance(allowed_hosts, str) or not all(isinstance(h, str) for h in allowed_hosts):
        raise InvalidInputError("allowed_hosts must be a list of host names (strings)")
    hosts = HostRules(allowed_hosts)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await data.close()

    app = FastAPI(
        title="adk-memory-kit console",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.console = data
    app.state.guard = guard
    app.state.hosts = hosts
    app.state.read_only = read_only
    app.state.operator = operator or _os_user()
    app.state.renderer = Renderer(read_only=read_only, token_required=guard.token is not None)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.middleware("http")
    async def rules(request: Request, call_next: Any) -> Response:
        if not hosts.host_ok(request):
            # a rebound or unknown name: no page, no cookie, nothing echoed
            return _plain_refusal(
                400, "unknown Host: the console answers only its own names (see --allowed-host)"
            )
        if not hosts.origin_ok(request):
            return _plain_refusal(403, "cross-origin request refused (Origin / Referer check)")
        path = _relative_path(request)
        request.state.csrf = guard.csrf_for(request)
        if not (path.startswith("/static/") or path == "/login" or guard.authenticated(request)):
            response: Response
            if path.startswith("/api/"):
                response = JSONResponse({"error": "missing or wrong console token"}, 401)
            else:
                root = request.scope.get("root_path", "")
                target = path + (f"?{request.url.query}" if request.url.query else "")
                response = RedirectResponse(
                    f"{root}/login?next={_quote(root + target)}", status_code=303
                )
        else:
            try:
                response = await call_next(request)
            except Exception as exc:  # one translation at the console's door
                response = _unexpected(request, exc)
        for name, value in SECURITY_HEADERS.items():
            response.headers[name] = value
        if request.cookies.get(CSRF_COOKIE) != request.state.csrf:
            response.set_cookie(
                CSRF_COOKIE,
                request.state.csrf,
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
                path=cookie_path(request),
            )
        return response

    @app.exception_handler(MemoryKitError)
    async def kit_error(request: Request, exc: MemoryKitError) -> Response:
        status = 400
        if isinstance(exc, MemoryNotFoundError):  # the console's NotFoundError too
            status = 404
        elif isinstance(exc, DatabaseUnavailableError):
            status = 503
        elif not isinstance(exc, InvalidInputError):
            status = 500
        return _error(request, status, str(exc))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(request, exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_parameter(request: Request, exc: RequestValidationError) -> Response:
        names = sorted({str(e.get("loc", ["", "?"])[-1]) for e in exc.errors()})
        return _error(request, 400, f"bad value for {', '.join(names)}")

    from adk_memory_kit.console import api, views

    app.include_router(views.router)
    app.include_router(api.router, prefix="/api")
    return app


def _error(request: Request, status: int, message: str) -> Response:
    if _relative_path(request).startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    renderer: Renderer = request.app.state.renderer
    body = renderer.page(request, "error.html", status=status, message=message)
    return HTMLResponse(body, status_code=status)


def _unexpected(request: Request, exc: Exception) -> Response:
    """A database error as the documented 503 (500 for anything else), one log line with
    the error's class and no request data."""
    err = translate(exc, "the console request")
    if isinstance(err, DatabaseUnavailableError):
        logger.warning("console: %s", describe(exc))
        return _error(request, 503, str(err))
    if err is not None:
        return _error(request, 400 if isinstance(err, InvalidInputError) else 500, str(err))
    logger.error("console: unexpected %s", type(exc).__name__)
    return _error(request, 500, "internal error: the console's log names its class")


def _plain_refusal(status: int, message: str) -> Response:
    response = PlainTextResponse(message, status_code=status)
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def _relative_path(request: Request) -> str:
    path = request.scope.get("path", "/")
    root = request.scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path or "/"


def _quote(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def _os_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name (containers): a neutral default
        return "console"
