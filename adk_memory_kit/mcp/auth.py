"""Who a connection is: bearer tokens the operator issues, each mapped to one app and one user.

Tokens live in a JSON file the operator owns (default ``$ADK_MEMORY_KIT_HOME/mcp_tokens.json``,
or ``--tokens PATH``). The file holds only each token's SHA-256, never the token: a copy of the
file lets no one connect. ``adk-memory-kit mcp token issue --app A --user U`` adds an entry and
prints the token once; ``token revoke ID`` removes one; ``token list`` shows ids, apps and users.
A lookup compares digests in constant time and re-reads the file when it changed on disk, so a
revoked token stops working without a restart.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from adk_memory_kit.core.validation import check_scope
from adk_memory_kit.errors import InvalidInputError

TOKENS_FORMAT = "adk-memory-kit.mcp-tokens/1"
TOKENS_FILE = "mcp_tokens.json"
TOKEN_PREFIX = "akmcp_"


@dataclass(frozen=True)
class Identity:
    """The app and user a token stands for; the only scope any tool acts in."""

    app_name: str
    user_id: str
    token_id: str


def digest(token: str) -> str:
    """The SHA-256 (hex) stored for ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def default_tokens_path() -> Path:
    """``$ADK_MEMORY_KIT_HOME/mcp_tokens.json`` (the kit's data folder)."""
    from adk_memory_kit.db.embedded import kit_home

    return kit_home() / TOKENS_FILE


class TokenFile:
    """The token file: issue, revoke, list and look up tokens (see the module documentation)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path).expanduser() if path else default_tokens_path()
        self._cache: tuple[tuple[int, int, int], list[dict[str, Any]]] | None = None

    def entries(self) -> list[dict[str, Any]]:
        """Every entry (``id``, ``sha256``, ``app``, ``user``, ``created_at``); none: ``[]``."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return []
        key = (stat.st_mtime_ns, stat.st_ino, stat.st_size)
        if self._cache and self._cache[0] == key:
            return self._cache[1]
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidInputError(f"the MCP token file {self.path} is not readable JSON") from exc
        if not isinstance(data, dict) or data.get("format") != TOKENS_FORMAT:
            raise InvalidInputError(f"{self.path} is not an MCP token file ({TOKENS_FORMAT})")
        entries = [e for e in data.get("tokens") or [] if isinstance(e, dict)]
        self._cache = (key, entries)
        return entries

    def lookup(self, token: str | None) -> Identity | None:
        """The identity of ``token``; ``None`` for a missing, unknown or revoked token."""
        if not token or not isinstance(token, str):
            return None
        wanted = digest(token.strip())
        found = None
        for entry in self.entries():  # every entry compared: the time says nothing
            if hmac.compare_digest(str(entry.get("sha256", "")), wanted):
                found = entry
        if found is None:
            return None
        return Identity(str(found["app"]), str(found["user"]), str(found["id"]))

    def issue(self, app_name: str, user_id: str) -> tuple[str, str]:
        """A new token for ``app_name`` + ``user_id``: returns ``(token_id, token)``; only the
        token's digest is written (the file is created with mode 0600)."""
        check_scope(app_name, user_id)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token_id = secrets.token_hex(4)
        entry = {
            "id": token_id,
            "sha256": digest(token),
            "app": app_name,
            "user": user_id,
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        self._write([*self.entries(), entry])
        return token_id, token

    def revoke(self, token_id: str) -> int:
        """Remove the entry ``token_id``; returns how many were removed (0 or 1)."""
        kept = [e for e in self.entries() if e.get("id") != token_id]
        removed = len(self.entries()) - len(kept)
        if removed:
            self._write(kept)
        return removed

    def _write(self, entries: list[dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps({"format": TOKENS_FORMAT, "tokens": entries}, indent=2)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".mcp_tokens.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp: mode 0600
                out.write(body + "\n")
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._cache = None


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header value; else ``None``."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
