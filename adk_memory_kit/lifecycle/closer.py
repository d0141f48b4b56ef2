"""SessionCloser: reload a session and hand it to the memory service, with retries.

ADK's ``Runner`` holds a memory service but never calls ``add_session_to_memory``; this is
the explicit write. Retrying is safe because ``PgVectorMemoryService`` ingestion is an
idempotent upsert keyed by session and event: a retry after a lost acknowledgement (the
write committed, the caller saw an error) leaves one copy, not two.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.sessions.base_session_service import BaseSessionService

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.db_errors import db_doors, describe, translate
from adk_memory_kit.core.db_errors import is_transient as db_is_transient
from adk_memory_kit.core.validation import check_identifier, check_scope
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle.config import SessionCloserConfig

logger = logging.getLogger(__name__)


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` is worth retrying: a database failure the kit classes as transient
    (connection lost, server down, lock conflict), given raw or as a kit error.

    Permanent failures (bad input, a value too large for an index, a missing extension or
    schema, an embedder error) are never retried.
    """
    return db_is_transient(exc)


@dataclass(frozen=True)
class CloseResult:
    """What :meth:`SessionCloser.close` did."""

    app_name: str
    user_id: str
    session_id: str
    status: Literal["ingested", "missing"]
    attempts: int
    events: int = 0
    rows_stored: int | None = None
    """Memory rows that now hold the session (``None`` when the memory service does not say:
    ``PgVectorMemoryService`` does; ADK's own services return nothing). Under the write
    policy this is usually fewer than ``events``: report this number, not ``events``."""

    @property
    def ok(self) -> bool:
        """True when the session was ingested."""
        return self.status == "ingested"


@db_doors
class SessionCloser:
    """Ingest a finished session into long-term memory.

    Args:
        session_service: where the session lives; it is reloaded on every attempt so the
            latest events are ingested.
        memory_service: any ``BaseMemoryService``; must upsert (``PgVectorMemoryService``
            does) for retries to be duplicate-free.
        config: a :class:`SessionCloserConfig` (``attempts``, ``backoff``), or its fields
            by keyword (``SessionCloser(s, m, attempts=5)``), not both.
        retry_if: which exceptions are transient (default :func:`is_transient`).
        sleep: the coroutine used to wait between tries (tests pass a no-op).
    """

    def __init__(
        self,
        session_service: BaseSessionService,
        memory_service: BaseMemoryService | None,
        *,
        config: SessionCloserConfig | None = None,
        retry_if: Callable[[BaseException], bool] = is_transient,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        **options: Any,
    ) -> None:
        if memory_service is None:
            raise InvalidInputError(
                "SessionCloser needs a memory service; pass memory_service= to the Runner "
                "(e.g. PgVectorMemoryService()) or to SessionCloser"
            )
        config = SessionCloserConfig.given(config, options, options_label="attempts/backoff")
        if not callable(retry_if) or not callable(sleep):
            raise InvalidInputError("retry_if and sleep must be callables")
        self.session_service = session_service
        self.memory_service = memory_service
        self.config = config
        self.attempts = config.attempts
        self.backoff = config.backoff
        self.retry_if = retry_if
        self._sleep = sleep

    async def close(self, app_name: str, user_id: str, session_id: str) -> CloseResult:
        """Reload the session and ingest it.

        Returns a :class:`CloseResult`; a session that no longer exists gives
        ``status="missing"`` (logged, not raised). A non-transient error, or a transient
        one that outlasts ``attempts``, is raised after logging, as a kit error
        (:class:`~adk_memory_kit.errors.DatabaseUnavailableError`, ``InvalidInputError``...)
        with the cause chained. Log lines name the session, never its content.
        """
        check_scope(app_name, user_id)
        check_identifier("session_id", session_id)
        where = f"{app_name}/{user_id}/{session_id}"
        delay = self.backoff
        for attempt in range(1, self.attempts + 1):
            try:
                session = await self.session_service.get_session(
                    app_name=app_name, user_id=user_id, session_id=session_id
                )
                if session is None:
                    logger.warning(
                        "session %s/%s/%s not found; nothing to ingest",
                        app_name,
                        user_id,
                        session_id,
                    )
                    return CloseResult(app_name, user_id, session_id, "missing", attempt)
                rows = None
                service = self.memory_service
                if isinstance(service, PgVectorMemoryService):  # says what it stored
                    rows = (await service.add_session_to_memory(session)).rows_stored
                else:  # ADK's contract returns nothing
                    await service.add_session_to_memory(session)
                return CloseResult(
                    app_name, user_id, session_id, "ingested", attempt, len(session.events), rows
                )
            except Exception as exc:
                error = translate(exc, f"closing session {where}") or exc
                if attempt >= self.attempts or not self.retry_if(error):
                    logger.warning(
                        "memory ingest failed for %s after %d attempt(s): %s",
                        where,
                        attempt,
                        describe(error),
                    )
                    if error is exc:
                        raise
                    raise error from exc
                logger.info(
                    "transient failure ingesting %s (%s); retry %d/%d in %.2fs",
                    where,
                    describe(error),
                    attempt,
                    self.attempts - 1,
                    delay,
                )
                await self._sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")  # pragma: no cover
