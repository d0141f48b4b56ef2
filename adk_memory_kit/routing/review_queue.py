"""The procedural review queue: behaviour-changing requests wait here for a human.

A request such as "always skip the price confirmation" would change how the agent behaves for
every future turn. Storing it where the agent reads it back would let any user (or any text a
tool returned) rewrite the agent's instructions: memory poisoning. So the router writes such
candidates to this table, keyed by app and user, and nothing in the kit ever reads it back into
a request until a human has approved it. A human lists, approves, rejects or revokes items
with ``adk-memory-kit review`` (or the console).

What approval does: the item becomes a standing instruction for that user (or, approved
``applies_to="app"``, for every user of the app), which
:class:`~adk_memory_kit.routing.approved_instructions.ApprovedInstructionsPlugin` renders into
the agent's instruction in a marked block with the approval's date and approver. Pending,
rejected and revoked items never reach the agent.
"""

from __future__ import annotations

import asyncio
import builtins
import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text as sql
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.data_home import DataHome, FunctionDataHome
from adk_memory_kit.core.db_errors import db_doors, translates_db_errors
from adk_memory_kit.core.scope import app_wide_unless, operator_scope, operator_wide
from adk_memory_kit.core.validation import check_identifier, check_scope, clean_text, short
from adk_memory_kit.db.catalog import home_comment_step
from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.db.fence import guard_write
from adk_memory_kit.db.migrations import Step, migrate
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.sensitive import redact_for_store

TABLE = "adk_memory_kit_review_queue"
COMPONENT = "review_queue"
STATUSES = ("pending", "approved", "rejected", "revoked")
#: Whom an approved item instructs the agent for: the user who said it, or every user of the app.
APPLIES_TO = ("user", "app")

# One statement per step (db.migrations), append-only.
STEPS = [
    Step(
        f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    id bigserial PRIMARY KEY,
    app_name text NOT NULL,
    user_id text NOT NULL,
    session_id text,
    text text NOT NULL,
    text_hash text NOT NULL,
    source text NOT NULL DEFAULT 'router',
    status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'rejected')),
    created_at timestamptz NOT NULL DEFAULT now(),
    decided_at timestamptz,
    decided_by text,
    note text
)"""
    ),
    Step(
        f"CREATE INDEX IF NOT EXISTS {TABLE}_scope"
        f" ON {TABLE} (app_name, user_id, status, created_at)"
    ),
    Step(
        f"CREATE UNIQUE INDEX IF NOT EXISTS {TABLE}_one_pending"
        f" ON {TABLE} (app_name, user_id, text_hash) WHERE status = 'pending'"
    ),
    home_comment_step(TABLE, "review_queue"),
    # approval closes the loop: an approved item may be revoked, and applies to its user or
    # to the whole app
    Step(f"ALTER TABLE {TABLE} DROP CONSTRAINT IF EXISTS {TABLE}_status_check"),
    Step(
        f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_status_check"
        " CHECK (status IN ('pending', 'approved', 'rejected', 'revoked'))"
    ),
    Step(
        f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS applies_to text NOT NULL DEFAULT 'user'"
        " CHECK (applies_to IN ('user', 'app')),"
        " ADD COLUMN IF NOT EXISTS revoked_at timestamptz,"
        " ADD COLUMN IF NOT EXISTS revoked_by text"
    ),
    Step(
        f"CREATE INDEX IF NOT EXISTS {TABLE}_approved"
        f" ON {TABLE} (app_name, applies_to, user_id, decided_at) WHERE status = 'approved'"
    ),
    # keyed by its user, as a table sharded by user needs (ids stay unique: one sequence);
    # an operator's lookup by id keeps an index of its own
    Step(
        f"ALTER TABLE {TABLE} DROP CONSTRAINT IF EXISTS {TABLE}_pkey,"
        f" ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY (app_name, user_id, id)"
    ),
    Step(f"CREATE INDEX IF NOT EXISTS {TABLE}_id ON {TABLE} (id)"),
]

_COLUMNS = (
    "id, app_name, user_id, session_id, text, source, status, created_at, decided_at, "
    "decided_by, note, applies_to, revoked_at, revoked_by"
)


@dataclass(frozen=True)
class ReviewItem:
    """One queued request and its decision, if any."""

    id: int
    app_name: str
    user_id: str
    session_id: str | None
    text: str
    source: str
    status: str
    created_at: datetime
    decided_at: datetime | None
    decided_by: str | None
    note: str | None
    applies_to: str = "user"
    revoked_at: datetime | None = None
    revoked_by: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> ReviewItem:
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


async def _first(conn: AsyncConnection, statement: str, params: dict[str, Any]) -> Any:
    return (await conn.execute(sql(statement), params)).mappings().first()


def _text_hash(value: str) -> str:
    return hashlib.sha256(" ".join(value.lower().split()).encode()).hexdigest()


@db_doors
class ReviewQueue:
    """The review queue table in the same Postgres as memory and sessions.

    Args:
        db_url: ``postgresql+psycopg://...``; ``None`` uses ``ADK_MEMORY_KIT_DB_URL`` or the
            embedded server.
        engine: an existing ``AsyncEngine`` to share.
    """

    def __init__(self, db_url: str | None = None, *, engine: AsyncEngine | None = None) -> None:
        self._db_url = db_url
        self._engine = engine
        self._owns_engine = engine is None
        self._ready = False
        self._lock: asyncio.Lock | None = None

    async def _ensure_ready(self) -> AsyncEngine:
        if not self._ready:
            if self._lock is None:
                self._lock = asyncio.Lock()
            async with self._lock:
                if self._engine is None:
                    self._engine = await asyncio.to_thread(make_engine, self._db_url, pool_size=2)
                if not self._ready:
                    await migrate(self._engine, COMPONENT, STEPS)
                    self._ready = True
        assert self._engine is not None
        return self._engine

    async def close(self) -> None:
        """Dispose of the connection pool (only if this queue created it)."""
        if self._engine is not None and self._owns_engine:
            await self._engine.dispose()
            self._engine = None
            self._ready = False

    @translates_db_errors("ReviewQueue.open")
    async def __aenter__(self) -> ReviewQueue:
        await self._ensure_ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @translates_db_errors("ReviewQueue.submit")
    async def submit(
        self,
        *,
        app_name: str,
        user_id: str,
        text: str,
        session_id: str | None = None,
        source: str = "router",
    ) -> ReviewItem:
        """Queue ``text`` for review; an identical pending item, or an approved one that
        already instructs this user's agent, is returned, not duplicated."""
        check_scope(app_name, user_id)
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError("a review item needs non-empty text")
        body = redact_for_store(clean_text(text.strip()))
        engine = await self._ensure_ready()
        params = {
            "app": app_name,
            "user": user_id,
            "sid": session_id,
            "text": body,
            "hash": _text_hash(body),
            "source": source,
        }
        async with engine.begin() as conn:
            await guard_write(conn, app_name, user_id)  # the forget fence
            # an instruction already approved for this user (or the whole app) applies: said
            # again, it is that item, not a second one to approve (or to forget to revoke)
            approved = await _first(
                conn,
                f"SELECT {_COLUMNS} FROM {TABLE} WHERE app_name = :app AND text_hash = :hash"
                " AND status = 'approved' AND (user_id = :user OR applies_to = 'app')"
                " ORDER BY decided_at DESC, id DESC LIMIT 1",
                params,
            )
            if approved is not None:
                return ReviewItem.from_row(approved)
            row = await _first(
                conn,
                f"INSERT INTO {TABLE} (app_name, user_id, session_id, text, text_hash, source)"
                " VALUES (:app, :user, :sid, :text, :hash, :source)"
                " ON CONFLICT (app_name, user_id, text_hash) WHERE status = 'pending'"
                f" DO NOTHING RETURNING {_COLUMNS}",
                params,
            )
            if row is None:  # the same request is already pending
                row = await _first(
                    conn,
                    f"SELECT {_COLUMNS} FROM {TABLE} WHERE app_name = :app AND user_id = :user"
                    " AND text_hash = :hash AND status = 'pending'",
                    params,
                )
        return ReviewItem.from_row(row)

    @translates_db_errors("ReviewQueue.list")
    async def list(
        self,
        *,
        app_name: str | None = None,
        user_id: str | None = None,
        status: str | None = "pending",
        limit: int = 50,
    ) -> list[ReviewItem]:
        """Items, oldest first, filtered by app, user and status (``None`` or ``"all"``: any)."""
        if status == "all":  # as the CLI and the console spell "any status"
            status = None
        if status is not None and status not in STATUSES:
            raise InvalidInputError(
                f"status must be one of {', '.join(STATUSES)} or all, got {short(status)}"
            )
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit < 2**63:
            raise InvalidInputError(f"limit must be positive (a whole number), got {short(limit)}")
        where: list[str] = ["TRUE"]
        params: dict[str, object] = {"lim": limit}
        for column, value in (("app_name", app_name), ("user_id", user_id), ("status", status)):
            if value is not None:
                check_identifier(column, value)
                where.append(f"{column} = :{column}")
                params[column] = value
        engine = await self._ensure_ready()
        with app_wide_unless(user_id if app_name is not None else None):  # else a reviewer's
            async with engine.connect() as conn:
                rows = await conn.execute(
                    sql(
                        f"SELECT {_COLUMNS} FROM {TABLE} WHERE {' AND '.join(where)}"
                        " ORDER BY created_at, id LIMIT :lim"
                    ),
                    params,
                )
                return [ReviewItem.from_row(r) for r in rows.mappings()]

    @translates_db_errors("ReviewQueue.approve")
    async def approve(
        self,
        item_id: int,
        *,
        by: str,
        note: str | None = None,
        app_name: str | None = None,
        applies_to: str = "user",
    ) -> ReviewItem:
        """Approve a pending item (or a revoked one, again): from the next model call on, the
        agent of its user (``applies_to="app"``: of every user of its app) is given it as a
        standing instruction by :class:`ApprovedInstructionsPlugin`, until it is revoked."""
        if applies_to not in APPLIES_TO:
            raise InvalidInputError(
                f"applies_to must be one of {', '.join(APPLIES_TO)}, got {short(applies_to)}"
            )
        return await self._decide(item_id, "approved", by, note, app_name, applies_to)

    @translates_db_errors("ReviewQueue.reject")
    async def reject(
        self, item_id: int, *, by: str, note: str | None = None, app_name: str | None = None
    ) -> ReviewItem:
        """Reject a pending item: it never reaches the agent."""
        return await self._decide(item_id, "rejected", by, note, app_name)

    @translates_db_errors("ReviewQueue.revoke")
    async def revoke(
        self, item_id: int, *, by: str, note: str | None = None, app_name: str | None = None
    ) -> ReviewItem:
        """Revoke an approved item: the agent is no longer given it (from its next model
        call). The approval (who, when) is kept beside the revocation."""
        return await self._decide(item_id, "revoked", by, note, app_name)

    @operator_wide  # a reviewer's decision on an item by its id
    async def _decide(
        self,
        item_id: int,
        status: str,
        by: str,
        note: str | None,
        app_name: str | None,
        applies_to: str = "user",
    ) -> ReviewItem:
        check_identifier("by", by)
        if isinstance(item_id, bool) or not isinstance(item_id, int):
            raise InvalidInputError(f"item id must be an integer, got {short(item_id)}")
        scope = " AND app_name = :app" if app_name is not None else ""
        by, note = redact_for_store(by), redact_for_store(note)
        params = {
            "id": item_id,
            "status": status,
            "by": by,
            "note": note,
            "app": app_name,
            "applies": applies_to,
        }
        if status == "revoked":
            # an approved item, and any approved copy of its text that reaches the same
            # agents (the same user, or the whole app): revoked, the instruction is gone;
            # the approval (who, when) stays on record
            statement = (
                f"WITH it AS (SELECT app_name AS a, user_id AS u, text_hash AS h,"
                f" applies_to AS s FROM {TABLE} WHERE id = :id AND status = 'approved'{scope})"
                f" UPDATE {TABLE} SET status = 'revoked', revoked_at = now(), revoked_by = :by,"
                " note = CASE WHEN id = :id THEN coalesce(:note, note) ELSE note END"
                " FROM it WHERE status = 'approved' AND app_name = it.a AND text_hash = it.h"
                " AND applies_to = it.s AND (it.s = 'app' OR user_id = it.u)"
                f" RETURNING {_COLUMNS}"
            )
        elif status == "approved":  # a pending item, or a revoked one approved again
            statement = (
                f"UPDATE {TABLE} SET status = 'approved', decided_at = now(), decided_by = :by,"
                " note = :note, applies_to = :applies, revoked_at = NULL, revoked_by = NULL"
                f" WHERE id = :id AND status IN ('pending', 'revoked'){scope}"
                f" RETURNING {_COLUMNS}"
            )
        else:
            statement = (
                f"UPDATE {TABLE} SET status = :status, decided_at = now(), decided_by = :by,"
                f" note = :note, applies_to = :applies WHERE id = :id AND status = 'pending'"
                f"{scope} RETURNING {_COLUMNS}"
            )
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            rows = (await conn.execute(sql(statement), params)).mappings().all()
            row = next((r for r in rows if r["id"] == item_id), None)
            if row is not None:
                return ReviewItem.from_row(row)
            existing = await _first(
                conn, f"SELECT {_COLUMNS} FROM {TABLE} WHERE id = :id{scope}", params
            )
        if existing is None:
            where = f" in app {app_name!r}" if app_name else ""
            raise InvalidInputError(
                f"no review item {item_id}{where}; run 'adk-memory-kit review list'"
            )
        if status == "revoked":
            raise InvalidInputError(
                f"review item {item_id} is {existing['status']}; only an approved item can be"
                " revoked"
            )
        raise InvalidInputError(
            f"review item {item_id} is already {existing['status']} by "
            f"{existing['decided_by']} at {existing['decided_at']:%Y-%m-%d %H:%M}"
        )

    @translates_db_errors("ReviewQueue.approved_instructions")
    async def approved_instructions(
        self, app_name: str, user_id: str, *, limit: int = 20
    ) -> builtins.list[ReviewItem]:
        """The approved, unrevoked items that instruct this user's agent: the user's own and
        the app-wide ones, oldest approval first (at most ``limit``, the newest kept)."""
        check_scope(app_name, user_id)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= 1000:
            raise InvalidInputError(f"limit must be 1 to 1000, got {short(limit)}")
        engine = await self._ensure_ready()
        # app-wide items were said by other users of the app: an operator approved them for
        # everyone, so this read crosses users, and only approved rows of this app are read
        with operator_scope():
            async with engine.connect() as conn:
                rows = await conn.execute(
                    sql(
                        f"SELECT {_COLUMNS} FROM {TABLE} WHERE app_name = :app"
                        " AND status = 'approved'"
                        " AND (applies_to = 'app' OR user_id = :user)"
                        " ORDER BY decided_at DESC, id DESC LIMIT :lim"
                    ),
                    {"app": app_name, "user": user_id, "lim": limit},
                )
                items = [ReviewItem.from_row(r) for r in rows.mappings()]
        # one instruction once, however often it was approved (the newest approval shown)
        seen: set[str] = set()
        unique = []
        for item in items:
            if item.text not in seen:
                seen.add(item.text)
                unique.append(item)
        return unique[::-1]

    @translates_db_errors("ReviewQueue.count_for_user")
    async def count_for_user(self, app_name: str, user_id: str) -> int:
        """How many review items (any status) hold this user's text."""
        check_scope(app_name, user_id)
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            result = await conn.execute(
                sql(f"SELECT count(*) FROM {TABLE} WHERE app_name = :app AND user_id = :user"),
                {"app": app_name, "user": user_id},
            )
            return int(result.scalar_one())

    @translates_db_errors("ReviewQueue.delete_for_user")
    async def delete_for_user(self, app_name: str, user_id: str) -> int:
        """Delete every review item of this user (right to be forgotten)."""
        check_scope(app_name, user_id)
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            result = await conn.execute(
                sql(f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user"),
                {"app": app_name, "user": user_id},
            )
            return result.rowcount or 0

    def data_home(self) -> DataHome:
        """This queue as a place holding per-user data, for ``forget_user`` and ``data_map``."""
        return FunctionDataHome("review_queue", self.count_for_user, self.delete_for_user)
