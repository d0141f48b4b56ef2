"""Re-apply the write policy to the stored sessions of one app (one user, or all of them).

A store written before the write policy existed (or under ``FULL_TRANSCRIPT``) keeps working
as it is; ``reindex`` cleans it: each session is read back through the session service's own
API (``list_sessions`` / ``get_session``) and ingested again under the policy. Ingestion is the
service's upsert, which rewrites that session's rows and deletes the rows of sentences and
events the policy no longer stores, all within ``app_name`` + that user. Facts stored
explicitly (``add_memory``: the router's dated facts, sleep-time facts) are kept. Nothing of
another user or app is read or written. Re-running is harmless: an unchanged row is not
rewritten. A run that writes holds a server-wide heavy-work slot (memory/admission.py) for
its duration, so it never runs beside an index build or a purge on the same server.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from google.adk.sessions.base_session_service import BaseSessionService

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.wording import counted
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.admission import held_slot
from adk_memory_kit.memory.documents import check_identifier
from adk_memory_kit.routing.write_policy import RoutedOptions, SentenceVerdict, select_events


@dataclass
class UserReindex:
    """What reindexing did for one user (counts only, never text)."""

    user_id: str
    sessions: int = 0
    rows_before: int = 0
    rows_after: int = 0
    sentences: Counter[str] = field(default_factory=Counter)  # reason -> count


@dataclass
class ReindexReport:
    app_name: str
    dry_run: bool
    users: list[UserReindex] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = []
        for u in self.users:
            reasons = ", ".join(f"{n} {r}" for r, n in sorted(u.sentences.items()))
            after = f"{u.rows_after} (dry run: nothing written)" if self.dry_run else u.rows_after
            out.append(
                f"{self.app_name}/{u.user_id}: {counted(u.sessions, 'session')}, "
                f"rows {u.rows_before} -> {after}; sentences: {reasons or 'none'}"
            )
        return out


async def reindex(
    session_service: BaseSessionService,
    memory_service: PgVectorMemoryService,
    *,
    app_name: str,
    user_id: str | None = None,
    dry_run: bool = False,
    progress: Callable[[str], None] | None = None,
) -> ReindexReport:
    """Re-ingest the sessions of ``app_name`` (only ``user_id``'s when given) under
    ``memory_service.config.write_policy``; ``dry_run`` writes nothing and reports the row count
    the run would leave (``rows_after``)."""
    check_identifier("app_name", app_name)
    if user_id is not None:
        check_identifier("user_id", user_id)
    if not isinstance(memory_service, PgVectorMemoryService):
        raise InvalidInputError("reindex needs a PgVectorMemoryService (it rewrites its rows)")
    listed = await session_service.list_sessions(app_name=app_name, user_id=user_id)
    by_user: dict[str, list[str]] = {}
    for s in listed.sessions:
        if user_id is None or s.user_id == user_id:
            by_user.setdefault(s.user_id, []).append(s.id)
    report = ReindexReport(app_name, dry_run)
    if dry_run:
        await _reindex_users(session_service, memory_service, app_name, by_user, report, progress)
    else:  # heavy work: one server-wide slot, as builds and purges (memory/admission.py)
        async with held_slot(await memory_service.store.ready()):
            await _reindex_users(
                session_service, memory_service, app_name, by_user, report, progress
            )
    return report


async def _reindex_users(
    session_service: BaseSessionService,
    memory_service: PgVectorMemoryService,
    app_name: str,
    by_user: dict[str, list[str]],
    report: ReindexReport,
    progress: Callable[[str], None] | None,
) -> None:
    dry_run = report.dry_run
    pipeline = memory_service.pipeline  # the one way in: policy, redaction, write
    for user in sorted(by_user):
        done = UserReindex(user)
        done.rows_before = sum(
            (await memory_service.count_memories(app_name=app_name, user_id=user)).values()
        )
        delta = 0
        for session_id in sorted(by_user[user]):
            session = await session_service.get_session(
                app_name=app_name, user_id=user, session_id=session_id
            )
            if session is None:
                continue
            verdicts: list[SentenceVerdict] = []
            options = pipeline.config.routed_options  # the verdicts are the routed policy's
            await select_events(
                session,
                list(session.events),
                pipeline.config.write_policy,
                options if isinstance(options, RoutedOptions) else None,
                verdicts,
            )
            done.sentences.update(v.reason for v in verdicts)
            if dry_run:
                delta += await pipeline.session_row_delta(session)
            else:
                await pipeline.write_session(session)
            done.sessions += 1
        done.rows_after = (
            done.rows_before + delta
            if dry_run
            else sum(
                (await memory_service.count_memories(app_name=app_name, user_id=user)).values()
            )
        )
        report.users.append(done)
        if progress is not None:
            progress(report.lines()[-1])
