"""Group grants (issue 47): which users of an app may read which group's shared memory.

This module owns the grants table (``adk_memory_scope_grants``): its DDL steps (appended to
the memory schema, memory/schema.py) and every statement on it. A grant is an operator's act
(:meth:`~adk_memory_kit.memory.service.BasePgVectorMemoryService.grant_group`, the CLI); a
user's search reads their own grants only (row-level security keys the table by app + user
like every kit table). ``forget_user`` deletes a user's grants with their other rows (the
table is a kit home).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.core.memory_scopes import APP_OWNER, GROUP_PREFIX, SHARED_PREFIX
from adk_memory_kit.db.catalog import home_comment_step
from adk_memory_kit.db.migrations import Step
from adk_memory_kit.memory.term_stats import USER_STATS

GRANTS = "adk_memory_scope_grants"
GROUP_OWNER = SHARED_PREFIX + GROUP_PREFIX


def steps() -> list[Step]:
    """The grants table's migration steps (append, never edit)."""
    return [
        Step(
            f"""CREATE TABLE IF NOT EXISTS {GRANTS} (
            app_name   text        NOT NULL,
            user_id    text        NOT NULL,
            grp        text        NOT NULL,
            granted_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (app_name, user_id, grp)
        )"""
        ),
        home_comment_step(GRANTS, "scope_grants"),
    ]


_GROUPS_OF = text(f"SELECT grp FROM {GRANTS} WHERE app_name = :app AND user_id = :user ORDER BY 1")
# The shared owners a user may read that hold rows (the app's; each granted group's): one
# primary-key probe of the per-owner statistics (memory/term_stats.py keeps ``n`` on every
# write), so a search reads no owner that has nothing.
_SHARED_OWNERS = text(
    f"""SELECT s.user_id FROM {USER_STATS} s
    WHERE s.app_name = :app AND s.n > 0 AND (s.user_id = :app_owner OR s.user_id IN (
        SELECT :group_prefix || g.grp FROM {GRANTS} g
        WHERE g.app_name = :app AND g.user_id = :user))
    ORDER BY 1"""
)
_GRANT = text(
    f"INSERT INTO {GRANTS} (app_name, user_id, grp) VALUES (:app, :user, :grp)"
    " ON CONFLICT (app_name, user_id, grp) DO NOTHING"
)
_REVOKE = text(f"DELETE FROM {GRANTS} WHERE app_name = :app AND user_id = :user AND grp = :grp")


async def groups_of(conn: AsyncConnection, app: str, user: str) -> list[str]:
    """The groups the user was granted in the app (names, sorted)."""
    return list((await conn.scalars(_GROUPS_OF, {"app": app, "user": user})).all())


async def shared_owners(conn: AsyncConnection, app: str, user: str) -> list[str]:
    """The shared owner ids (core/memory_scopes.py) the user may read in the app and that
    hold rows: the app's, and each granted group's."""
    params = {"app": app, "user": user, "app_owner": APP_OWNER, "group_prefix": GROUP_OWNER}
    return list((await conn.scalars(_SHARED_OWNERS, params)).all())


async def grant(conn: AsyncConnection, app: str, user: str, group: str) -> bool:
    """Grant ``group`` to the user; ``True`` if the grant is new."""
    result = await conn.execute(_GRANT, {"app": app, "user": user, "grp": group})
    return bool(result.rowcount)


async def revoke(conn: AsyncConnection, app: str, user: str, group: str) -> bool:
    """Revoke ``group`` from the user; ``True`` if there was a grant."""
    result = await conn.execute(_REVOKE, {"app": app, "user": user, "grp": group})
    return bool(result.rowcount)


__all__ = ["GRANTS", "grant", "groups_of", "revoke", "shared_owners", "steps"]
