"""Use-based decay input: which memories recall returned, recorded off the hot path.

Every recall (``search``, ``search_memory``, and so ADK's preload and ``load_memory`` tools)
hands the ids it returned to an :class:`AccessRecorder`. Recording is an in-process dict
update: a search never waits for a write. The buffer is flushed by a background task
``flush_delay`` seconds after the first unflushed access, or at once (still in the
background) when ``max_pending`` ids are waiting; a flush runs ONE ``UPDATE`` per user
(``access_count += n``, ``last_accessed_at = greatest(...)``). ``flush()`` writes everything
pending now (tests, ``close()``, before a purge).

Guarantees: counts are never lost while the process lives (a failed flush puts its counts
back and logs the failure class only); a crash loses at most the unflushed window, which only
makes a memory look less used, never more.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, timezone

logger = logging.getLogger(__name__)

Scope = tuple[str, str]
# (app, user, {row id: (count, last access)}) -> None; one UPDATE for the user
Writer = Callable[[str, str, dict[str, tuple[int, datetime]]], Awaitable[None]]


class AccessRecorder:
    """Buffers recall accesses per user and writes them in batches."""

    def __init__(self, writer: Writer, *, flush_delay: float = 2.0, max_pending: int = 500):
        self._writer = writer
        self.flush_delay = flush_delay
        self.max_pending = max_pending
        self._pending: dict[Scope, dict[str, tuple[int, datetime]]] = {}
        self._count = 0
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.flushed_rows = 0

    @property
    def pending(self) -> int:
        """How many (user, row) accesses wait to be written."""
        return self._count

    def record(self, app: str, user: str, ids: Iterable[str]) -> None:
        """Note one access of each id (never blocks, never raises for a database problem)."""
        now = datetime.now(timezone.utc)
        bucket = self._pending.setdefault((app, user), {})
        for row_id in ids:
            count, _ = bucket.get(row_id, (0, now))
            if count == 0:
                self._count += 1
            bucket[row_id] = (count + 1, now)
        if not bucket:
            self._pending.pop((app, user), None)
        if self._count:
            self._schedule(immediate=self._count >= self.max_pending)

    def _schedule(self, *, immediate: bool) -> None:
        if self._task is not None and not self._task.done():
            if not immediate:
                return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: flush() writes it later
        self._task = loop.create_task(self._flush_later(0 if immediate else self.flush_delay))

    async def _flush_later(self, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        try:
            await self.flush()
        except Exception as exc:  # logged by class only; counts were put back
            logger.warning("memory access flush failed: %s", type(exc).__name__)

    async def flush(self) -> int:
        """Write every pending access now (one UPDATE per user); returns the rows touched."""
        async with self._lock:
            batch, self._pending, self._count = self._pending, {}, 0
            written = 0
            for (app, user), rows in sorted(batch.items()):
                try:
                    await self._writer(app, user, rows)
                except BaseException:
                    self._put_back(app, user, rows)
                    for scope, rest in batch.items():
                        if scope > (app, user):
                            self._put_back(*scope, rest)
                    raise
                written += len(rows)
            self.flushed_rows += written
            return written

    def _put_back(self, app: str, user: str, rows: dict[str, tuple[int, datetime]]) -> None:
        bucket = self._pending.setdefault((app, user), {})
        for row_id, (count, when) in rows.items():
            old_count, old_when = bucket.get(row_id, (0, when))
            if old_count == 0:
                self._count += 1
            bucket[row_id] = (old_count + count, max(old_when, when))

    async def close(self) -> None:
        """Cancel the timer and write what is pending."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        await self.flush()
