"""Server-side rendering: one Jinja2 environment with autoescaping always on."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import jinja2
from starlette.requests import Request

TEMPLATES = Path(__file__).parent / "templates"

# Fixed messages shown after a change (the URL carries only the code, never free text).
DONE_MESSAGES = {
    "deleted": "Memory deleted.",
    "corrected": "Memory corrected: the old item is kept, superseded.",
    "pinned": "Memory pinned.",
    "unpinned": "Memory unpinned.",
    "approved": "Review item approved: the user's agent follows it from its next model call "
    "(with ApprovedInstructionsPlugin installed, as MemoryKit does).",
    "approved_app": "Review item approved for every user of the app: their agents follow it "
    "from their next model call.",
    "rejected": "Review item rejected: it never reaches the agent.",
    "revoked": "Approval revoked: the agent no longer follows it, from its next model call.",
    "forgotten": "Forget finished: see the data map below and the forget log.",
    "forget_unverified": "Forget NOT verified: data was still left. Re-run it.",
    "logged_out": "Logged out.",
    "added": "Memory added to long-term memory.",
    "added_review": "Not stored: it reads as a change to how the agent behaves, so it went to "
    "the review queue.",
    "added_dropped": "Not stored: it looks like sensitive data.",
    "added_rejected": "Not stored: the memory service's quality gate refused it.",
    "edited": "Memory edited: the old version is kept, superseded.",
}


def _when(value: Any) -> str:
    """A time as ``YYYY-MM-DD HH:MM UTC`` (ISO strings, datetimes, or POSIX seconds)."""
    if value is None or value == "":
        return "—"
    if isinstance(value, int | float):
        value = datetime.fromtimestamp(value, tz=timezone.utc)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _num(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    return f"{value:.{digits}f}"


def _usd(value: Any) -> str:
    """A cost in USD; ``None`` (no priced call) as "unknown", never as 0."""
    if value is None:
        return "unknown"
    if value == 0:
        return "$0"
    return f"${value:.4f}" if value >= 0.01 else f"${value:.6f}"


def _ms(value: Any) -> str:
    if value is None:
        return "—"
    return f"{value:.0f} ms" if value < 10_000 else f"{value / 1000:.1f} s"


def _thousands(value: Any) -> str:
    return f"{int(value or 0):,}"


def _state_text(value: Any) -> str:
    """A session-state value as a person reads it: text as it is (a rendered view such as
    ``wm_view`` keeps its lines and characters), anything else as indented JSON with its
    characters unescaped. Autoescaping still applies where it is shown."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _seg(value: str) -> str:
    """One URL path segment (app, user, session ids may hold any character)."""
    return quote(str(value), safe="")


class Renderer:
    """Renders the console's templates with the values every page needs."""

    def __init__(self, *, read_only: bool, token_required: bool) -> None:
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(TEMPLATES),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(
            when=_when,
            num=_num,
            seg=_seg,
            usd=_usd,
            ms=_ms,
            thousands=_thousands,
            state_text=_state_text,
        )
        self.env.globals.update(urlencode=urlencode)
        self.read_only = read_only
        self.token_required = token_required

    def page(self, request: Request, template: str, **context: Any) -> str:
        root = request.scope.get("root_path", "")
        done = request.query_params.get("done")
        base = {
            "request": request,
            "root": root,
            "csrf": request.state.csrf,
            "read_only": self.read_only,
            "token_required": self.token_required,
            "features": request.app.state.console.features,
            "operator": request.app.state.operator,
            "done": DONE_MESSAGES.get(done or ""),
            "path": request.url.path,
            "full_path": request.url.path + (f"?{request.url.query}" if request.url.query else ""),
            "nav": "",
        }
        base.update(context)
        return self.env.get_template(template).render(**base)
