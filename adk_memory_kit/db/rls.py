"""Row-level security: PostgreSQL's own wall between users, behind the kit's SQL filters.

With row-level security on (opt-in: ``ADK_MEMORY_KIT_RLS=on`` or
``make_engine(rls_enabled=True)``; off by default, see docs/security.md for the measured
overhead), every kit table holding per-user rows
(:data:`KIT_TABLES`) carries the policy :data:`POLICY` and ``FORCE ROW LEVEL SECURITY``:
a row is visible (and writable) only when its ``app_name`` and ``user_id`` equal the
transaction's ``adk_memory_kit.app`` / ``adk_memory_kit.user`` settings, or when the
transaction runs in operator mode (``adk_memory_kit.operator = 'on'``). So a statement that
forgets its ``WHERE app_name = ... AND user_id = ...`` reads only the current user's rows,
and nothing at all outside a user's scope.

How a transaction gets its scope: the public doors set the running code's scope
(:func:`adk_memory_kit.core.scope.user_scope`, from the call's ``app_name`` and ``user_id``)
and :func:`install` hooks the engine's ``begin``: the first statement of every transaction
sets the two settings (transaction-local, so nothing survives into the pool). Operator work
(migrations, index builds, maintenance over all users, operator views) runs under
:func:`adk_memory_kit.core.scope.operator_scope`.

Superusers and ``BYPASSRLS`` roles skip every policy. When the URL's role is one of them
(the embedded server connects as the superuser ``postgres``), scoped transactions
``SET LOCAL ROLE`` to :data:`SCOPED_ROLE`, a ``NOLOGIN`` role without ``BYPASSRLS`` holding
only ``SELECT, INSERT, UPDATE, DELETE`` on the kit tables (created on first connect when the
URL's role may create roles; otherwise a warning says the wall is not effective). Operator
transactions keep the URL's role. A URL whose role is neither owns the tables (it ran the
migrations), and ``FORCE ROW LEVEL SECURITY`` holds the owner to the policies too.

This wall stops a statement that forgets its filter. It does not stop SQL run on the kit's
own connection on purpose: such SQL can change the settings (or reset the role). See
docs/security.md.
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.memory_scopes import APP_OWNER, GROUP_PREFIX, SHARED_PREFIX
from adk_memory_kit.core.scope import OPERATOR, active_scope, operator_scope, user_scope
from adk_memory_kit.db.catalog import discover
from adk_memory_kit.errors import InvalidInputError

logger = logging.getLogger(__name__)

RLS_ENV = "ADK_MEMORY_KIT_RLS"
#: Whether row-level security is on when neither ``make_engine(rls_enabled=...)`` nor
#: ``ADK_MEMORY_KIT_RLS`` says.
DEFAULT_ON = False
#: The role scoped transactions switch to when the URL's role bypasses row-level security.
SCOPED_ROLE = "adk_memory_kit_scoped"
#: The name of the policy on every kit table.
POLICY = "adk_memory_kit_user_rows"
APP_SETTING = "adk_memory_kit.app"
USER_SETTING = "adk_memory_kit.user"
OPERATOR_SETTING = "adk_memory_kit.operator"

#: Every kit table holding per-user rows (each has ``app_name`` and ``user_id`` columns).
#: The names are owned by the packages that create the tables (a higher layer); a test
#: checks that this list names every table they create. ADK's own session tables are not
#: kit tables and are left alone.
KIT_TABLES: tuple[str, ...] = (
    "adk_memory_items",
    "adk_memory_session_snapshots",
    "adk_memory_user_stats",
    "adk_memory_term_stats",
    "adk_memory_entities",
    "adk_memory_kit_review_queue",
    "adk_episodic_log",
    "adk_memory_kit_forget_fence",
    "adk_memory_kit_forget_log",
    "adk_memory_kit_ingest_watermarks",
    "adk_memory_scope_grants",
)
#: The second policy (issue 47, docs/scopes.md): a scoped transaction may also READ the
#: shared rows of its app (owner ``~shared:app``) and of the groups granted to its user,
#: in the tables a search reads. It is ``FOR SELECT`` only, so no user writes a shared row.
SHARED_POLICY = "adk_memory_kit_shared_rows"
SHARED_READ_TABLES: tuple[str, ...] = (
    "adk_memory_items",
    "adk_memory_user_stats",
    "adk_memory_term_stats",
    "adk_memory_entities",
)
_GRANTS = "adk_memory_scope_grants"
#: Kit tables without per-user rows that scoped transactions may read.
SHARED_TABLES: tuple[str, ...] = ("adk_memory_kit_schema",)

_ON = {"1", "on", "true", "yes"}
_OFF = {"0", "off", "false", "no"}
_ROLE_KEY = "adk_memory_kit_rls_role"  # the role scoped transactions switch to (or None)
_BYPASS_KEY = "adk_memory_kit_rls_bypass"  # the URL's role skips policies by itself
_enabled: weakref.WeakSet[Any] = weakref.WeakSet()  # sync engines with the wall on
_warned: set[str] = set()

_USING = (
    f"current_setting('{OPERATOR_SETTING}', true) = 'on' OR ("
    f"app_name = current_setting('{APP_SETTING}', true) AND "
    f"user_id = current_setting('{USER_SETTING}', true))"
)


def _shared_using(table: str) -> str:
    """The shared-read policy's condition on ``table`` (its rows' owner is a shared owner
    id the transaction's user is entitled to)."""
    group_owner = SHARED_PREFIX + GROUP_PREFIX
    return (
        f"app_name = current_setting('{APP_SETTING}', true) AND ("
        f"user_id = '{APP_OWNER}' OR (user_id LIKE '{group_owner}%' AND EXISTS ("
        f"SELECT 1 FROM {_GRANTS} g WHERE g.app_name = current_setting('{APP_SETTING}', true)"
        f" AND g.user_id = current_setting('{USER_SETTING}', true)"
        f" AND g.grp = substr({table}.user_id, {len(group_owner) + 1}))))"
    )


# a scoped transaction sets all three of its settings, operator mode off too: a value left at
# session level on the server connection (a pooler hands connections from client to client)
# never widens what it sees
_NOT_OPERATOR = f"set_config('{OPERATOR_SETTING}', '', true)"
_SCOPED = (
    f"SELECT set_config('{APP_SETTING}', %s, true), set_config('{USER_SETTING}', %s, true), "
    + _NOT_OPERATOR
)
_SCOPED_AS_ROLE = _SCOPED + ", set_config('role', %s, true)"
_NOBODY = (
    f"SELECT set_config('{APP_SETTING}', '', true), set_config('{USER_SETTING}', '', true), "
    + _NOT_OPERATOR
)
_NOBODY_AS_ROLE = _NOBODY + ", set_config('role', %s, true)"
_OPERATOR = f"SELECT set_config('{OPERATOR_SETTING}', 'on', true)"
_OPERATOR_SESSION = f"SELECT set_config('{OPERATOR_SETTING}', 'on', false)"
_ELEVATE = text(f"SELECT set_config('role', 'none', true), {_OPERATOR[7:]}")
_ROLE_FACTS = (
    "SELECT rolsuper OR rolbypassrls, rolsuper OR rolcreaterole, "
    "EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s), "
    "EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s AND pg_has_role(current_user, oid, 'USAGE'))"
    " FROM pg_roles WHERE rolname = current_user"
)
_TABLE_STATE = text(
    "SELECT DISTINCT ON (c.oid) t.name, c.relrowsecurity AS enabled,"
    " c.relforcerowsecurity AS forced,"
    " EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = :policy)"
    "   AS has_policy,"
    " (r.oid IS NULL OR has_table_privilege(r.oid, c.oid, 'DELETE')) AS granted"
    " FROM unnest(CAST(:names AS text[])) AS t(name)"
    " JOIN pg_class c ON c.oid = to_regclass(t.name)"
    " LEFT JOIN pg_roles r ON r.rolname = :role ORDER BY c.oid"
)
_SEQUENCES = text(
    "SELECT d.objid::regclass::text FROM pg_depend d JOIN pg_class s ON s.oid = d.objid"
    " WHERE s.relkind = 'S' AND d.refobjid = to_regclass(:t) AND d.deptype IN ('a', 'i')"
)


def rls_default() -> bool:
    """Whether row-level security is on by default: ``ADK_MEMORY_KIT_RLS`` (``on`` /
    ``off``), else :data:`DEFAULT_ON`."""
    value = os.environ.get(RLS_ENV, "").strip().lower()
    if not value:
        return DEFAULT_ON
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise InvalidInputError(f"{RLS_ENV} must be 'on' or 'off'")


def rls_on(engine: AsyncEngine | Any) -> bool:
    """Whether ``engine`` (made by :func:`~adk_memory_kit.db.engine.make_engine`) runs with
    row-level security on."""
    return getattr(engine, "sync_engine", engine) in _enabled


def install(engine: AsyncEngine, enabled: bool, *, per_transaction: bool = False) -> None:
    """Hook ``engine``: with ``enabled``, every transaction starts in the running code's
    scope; without, every connection runs in operator mode (so policies that another
    process installed do not hide rows from a URL role that owns the tables).
    ``per_transaction`` (behind a pooler in transaction mode, where a session setting would
    stay on a server connection that other clients get next): operator mode is set in each
    transaction instead of once per connection."""
    sync = engine.sync_engine
    if enabled:
        _enabled.add(sync)
        event.listen(sync.pool, "connect", _learn_role)
        event.listen(sync, "begin", _enter_scope)
    elif per_transaction:
        event.listen(sync, "begin", _operator_transaction)
    else:
        event.listen(sync.pool, "connect", _operator_session)


def _execute(dbapi_connection: Any, sql: str, params: tuple[str, ...] = ()) -> None:
    """Run one statement on the driver's connection (inside SQLAlchemy's own hooks)."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(sql, params)
    finally:
        cursor.close()


def _in_transaction(conn: Connection, sql: str, params: tuple[str, ...] = ()) -> None:
    """Run one statement first in the transaction ``conn`` begins."""
    dbapi_connection = conn.connection.dbapi_connection
    assert dbapi_connection is not None
    _execute(dbapi_connection, sql, params)


def _operator_transaction(conn: Connection) -> None:
    """``begin`` hook behind a transaction pooler: operator mode for this transaction only."""
    _in_transaction(conn, _OPERATOR)


def _operator_session(dbapi_connection: Any, connection_record: Any) -> None:
    _execute(dbapi_connection, _OPERATOR_SESSION)
    dbapi_connection.commit()


def _learn_role(dbapi_connection: Any, connection_record: Any) -> None:
    """On each new connection: does its role skip policies, and which role do scoped
    transactions switch to (created here when missing and the role may create roles)."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(_ROLE_FACTS, (SCOPED_ROLE, SCOPED_ROLE))
        bypass, can_create, exists, usable = cursor.fetchone()
        if bypass and not exists and can_create:
            try:
                cursor.execute(f"CREATE ROLE {SCOPED_ROLE} NOLOGIN NOBYPASSRLS")
                dbapi_connection.commit()
            except Exception as exc:  # a concurrent first start created it: fine
                if getattr(exc, "sqlstate", None) not in ("42710", "23505"):
                    raise
                dbapi_connection.rollback()
            cursor.execute(_ROLE_FACTS, (SCOPED_ROLE, SCOPED_ROLE))
            bypass, can_create, exists, usable = cursor.fetchone()
    finally:
        cursor.close()
    dbapi_connection.commit()
    connection_record.info[_BYPASS_KEY] = bool(bypass)
    connection_record.info[_ROLE_KEY] = SCOPED_ROLE if bypass and usable else None
    if bypass and not usable and "role" not in _warned:
        _warned.add("role")
        logger.warning(
            "row-level security is on, but the database role of the URL bypasses it "
            "(superuser or BYPASSRLS) and cannot switch to %s; the kit's policies do not "
            "apply. Create the role (CREATE ROLE %s NOLOGIN; GRANT %s TO <url role>) or "
            "connect as a role that owns the tables without BYPASSRLS (docs/security.md)",
            SCOPED_ROLE,
            SCOPED_ROLE,
            SCOPED_ROLE,
        )


def _enter_scope(conn: Connection) -> None:
    """``begin`` hook: the first statement of the transaction sets its scope."""
    info = conn.connection.info
    role = info.get(_ROLE_KEY)
    scope = active_scope()
    params: tuple[str, ...]
    if scope == OPERATOR:
        if info.get(_BYPASS_KEY):
            return  # the URL's role sees everything by itself
        sql, params = _OPERATOR, ()
    elif isinstance(scope, tuple):
        sql, params = (_SCOPED_AS_ROLE, (*scope, role)) if role else (_SCOPED, scope)
    elif role:
        sql, params = _NOBODY_AS_ROLE, (role,)
    else:
        sql, params = _NOBODY, ()  # no scope: the settings are empty, no row matches
    _in_transaction(conn, sql, params)


@asynccontextmanager
async def user_transaction(
    engine: AsyncEngine, app_name: str, user_id: str
) -> AsyncIterator[AsyncConnection]:
    """``engine.begin()`` as one user (for operator jobs that work user by user)."""
    with user_scope(app_name, user_id):
        async with engine.begin() as conn:
            yield conn


@asynccontextmanager
async def operator_connect(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """``engine.connect()`` in operator mode: every user's rows (maintenance, audits)."""
    with operator_scope():
        async with engine.connect() as conn:
            yield conn


@asynccontextmanager
async def operator_begin(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """``engine.begin()`` in operator mode: every user's rows (maintenance, audits)."""
    with operator_scope():
        async with engine.begin() as conn:
            yield conn


async def _protect(conn: AsyncConnection, row: Any, role: str | None) -> None:
    table = row.name
    if not row.has_policy:
        await conn.execute(text(f"CREATE POLICY {POLICY} ON {table} USING ({_USING})"))
    if not row.enabled:
        await conn.execute(text(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY"))
    if not row.forced:
        await conn.execute(text(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY"))
    if role and not row.granted:
        await conn.execute(text(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {role}"))
        for (sequence,) in await conn.execute(_SEQUENCES, {"t": table}):
            await conn.execute(text(f"GRANT USAGE, SELECT ON SEQUENCE {sequence} TO {role}"))


async def _protect_shared_reads(conn: AsyncConnection) -> None:
    """Put :data:`SHARED_POLICY` on each existing table of :data:`SHARED_READ_TABLES` (once
    the grants table it reads exists)."""
    if not await conn.scalar(text("SELECT to_regclass(:t) IS NOT NULL"), {"t": _GRANTS}):
        return
    missing = await conn.scalars(
        text(
            "SELECT t.name FROM unnest(CAST(:names AS text[])) AS t(name)"
            " JOIN pg_class c ON c.oid = to_regclass(t.name)"
            " WHERE NOT EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid"
            " AND p.polname = :policy)"
        ),
        {"names": list(SHARED_READ_TABLES), "policy": SHARED_POLICY},
    )
    for table in missing.all():
        await conn.execute(
            text(
                f"CREATE POLICY {SHARED_POLICY} ON {table} FOR SELECT"
                f" USING ({_shared_using(table)})"
            )
        )


async def protect_homes(engine: AsyncEngine) -> None:
    """:func:`protect_tables` in an operator transaction of its own: for tables marked as
    kit homes after the kit's migrations ran (``forget_user`` calls it before deleting)."""
    if rls_on(engine):
        async with operator_begin(engine) as conn:
            await elevate(conn)
            await protect_tables(conn)


async def elevate(conn: AsyncConnection) -> None:
    """Switch the open transaction to operator mode (the URL's own role, every row): for
    migrations and DDL run inside a transaction a user's call opened."""
    if rls_on(conn.engine):
        await conn.execute(_ELEVATE)


async def protect_tables(conn: AsyncConnection) -> None:
    """Put the policy on every existing kit table (idempotent; cheap when done). Runs in
    operator mode, in the migration transactions (after :func:`elevate`)."""
    if not rls_on(conn.engine):
        return
    role = await conn.scalar(
        text("SELECT rolname FROM pg_roles WHERE rolname = :r"), {"r": SCOPED_ROLE}
    )
    homes = [h.qualified for h in await discover(conn) if h.keyed]
    names = list(dict.fromkeys([*KIT_TABLES, *homes]))
    state = await conn.execute(_TABLE_STATE, {"names": names, "policy": POLICY, "role": role})
    for row in state.all():
        if row.has_policy and row.enabled and row.forced and row.granted:
            continue
        try:
            async with conn.begin_nested():
                await _protect(conn, row, role)
        except Exception as exc:  # e.g. an application's table this role does not own
            logger.warning(
                "row-level security: could not protect table %s (%s); its rows are guarded "
                "by the kit's filters only",
                row.name,
                type(exc).__name__,
            )
    await _protect_shared_reads(conn)
    if role:
        for table in SHARED_TABLES:
            if await conn.scalar(text("SELECT to_regclass(:t) IS NOT NULL"), {"t": table}):
                await conn.execute(text(f"GRANT SELECT ON {table} TO {role}"))


__all__ = [
    "APP_SETTING",
    "DEFAULT_ON",
    "KIT_TABLES",
    "OPERATOR_SETTING",
    "POLICY",
    "RLS_ENV",
    "SCOPED_ROLE",
    "SHARED_POLICY",
    "SHARED_READ_TABLES",
    "USER_SETTING",
    "elevate",
    "install",
    "operator_begin",
    "operator_connect",
    "protect_homes",
    "protect_tables",
    "rls_default",
    "rls_on",
    "user_transaction",
]
