"""Per-user background tasks a process runs beside its writes (index builds, folds)."""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class BackgroundTasks(Generic[T]):
    """At most one task per (app, user) in this process: how many run, waiting for them,
    cancelling them."""

    def __init__(self) -> None:
        self._tasks: dict[tuple[str, str], asyncio.Task[T]] = {}

    @property
    def running(self) -> int:
        """How many tasks this process is running (or waiting to run) now."""
        return len(self._tasks)

    async def wait(self) -> None:
        """Wait for the tasks running now (benchmarks, tests, a graceful shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self) -> None:
        """Cancel running tasks (an interrupted build is redone next time; rows an
        interrupted fold left stay pending, read by the exact scan)."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
