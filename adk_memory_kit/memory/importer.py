"""Bulk import of memories from another store: JSON lines, ADK's SQLite memory service, a Mem0
export (issue 45).

Every record goes in through the service's own doors, so nothing skips a check a live write
would get:

- a fact (a JSON line without ``session_id``, a Mem0 memory) through ``add_memory``: the
  redaction gate, the verifier, ``min_importance`` and consolidation;
- a conversation turn (a JSON line with ``session_id``, a row of ADK's SQLite memory) through
  ``add_session_to_memory``, one whole session per call: the service's write policy, then the
  same gate.

Records keep ids derived from the source (the source's id, else the line), so importing the same
file again rewrites rows rather than adding copies. Progress is kept in a state file (default
``$ADK_MEMORY_KIT_HOME/imports/<digest>.json``, one per source file, format, app and user): an
interrupted import resumes after the last batch it finished. Errors name the record (its line
or row number), never its text.

An import is heavy work: it holds one of the server's heavy-work slots (memory/admission.py)
from start to end, as index builds, purges and reindexing do, so it waits while they hold
them all and never runs beside another import of the same server. Beside live traffic, run
it in a process of its own at low priority (``adk-memory-kit import`` does:
:func:`~.backend_priority.run_as_batch_job`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.session import Session
from google.genai import types

from adk_memory_kit.core.times import parse_time
from adk_memory_kit.core.validation import check_scope
from adk_memory_kit.db.embedded import kit_home
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.admission import held_slot

FORMATS = ("jsonl", "adk-sqlite", "mem0")
#: Records per ``add_memory`` call (facts); a session's turns always go in one call.
DEFAULT_BATCH = 200


@dataclass
class ImportReport:
    """What an import did (counts only, never text)."""

    read: int = 0
    written: int = 0
    rejected: int = 0
    #: records a previous run of the same import had finished (resumed after them)
    skipped: int = 0
    sessions: int = 0
    complete: bool = False


@dataclass(frozen=True)
class _Fact:
    app: str
    user: str
    entry: MemoryEntry


@dataclass(frozen=True)
class _Turn:
    app: str
    user: str
    session_id: str
    event: Event


@dataclass
class _State:
    """An import's progress file: records done, and whether the import finished."""

    path: Path
    done: int = 0
    complete: bool = False

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = {"done": self.done, "complete": self.complete}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(body), encoding="utf-8")
        tmp.replace(self.path)


def _when(value: Any, where: str) -> datetime:
    """A record's time: ISO 8601 text or seconds since the epoch (:func:`parse_time`); none:
    now."""
    if value is None or value == "":
        return datetime.now(timezone.utc)
    try:
        when = parse_time(value)
    except (OverflowError, OSError, ValueError):  # epoch seconds out of range
        when = None
    if when is None:
        raise InvalidInputError(f"{where}: the time is neither ISO 8601 nor epoch seconds")
    return when


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{where}: the memory's text is missing or not text")
    return value


def _key(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:32]


def _fact(app: str, user: str, text: str, when: datetime, author: str | None, key: str,
          metadata: Mapping[str, Any] | None) -> _Fact:  # fmt: skip
    entry = MemoryEntry(
        id=f"import-{key}",
        author=author or "user",
        timestamp=when.isoformat(),
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        custom_metadata={**(metadata or {}), "source": "import"},
    )
    return _Fact(app, user, entry)


def _scope(
    record: Mapping[str, Any], app: str | None, user: str | None, where: str
) -> tuple[str, str]:
    got_app = app or record.get("app_name") or record.get("app")
    got_user = user or record.get("user_id") or record.get("user")
    if not isinstance(got_app, str) or not isinstance(got_user, str):
        raise InvalidInputError(f"{where}: no app or user (give --app/--user or the fields)")
    check_scope(got_app, got_user)
    return got_app, got_user


def _read_jsonl(path: Path, app: str | None, user: str | None) -> Iterator[_Fact | _Turn]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path.name} line {number}"
            try:
                record = json.loads(line)
            except ValueError:
                raise InvalidInputError(f"{where}: not a JSON object") from None
            if not isinstance(record, dict):
                raise InvalidInputError(f"{where}: not a JSON object")
            got_app, got_user = _scope(record, app, user, where)
            text = _text(record.get("text"), where)
            when = _when(record.get("timestamp"), where)
            metadata = record.get("metadata")
            if metadata is not None and not isinstance(metadata, dict):
                raise InvalidInputError(f"{where}: metadata must be a JSON object")
            key = str(record.get("id") or _key(path.name, number, text))
            session_id = record.get("session_id")
            if session_id:
                event = Event(
                    id=key[:64],
                    author=str(record.get("author") or "user"),
                    invocation_id="import",
                    timestamp=when.timestamp(),
                    content=types.Content(role="user", parts=[types.Part(text=text)]),
                )
                yield _Turn(got_app, got_user, str(session_id), event)
            else:
                yield _fact(got_app, got_user, text, when, record.get("author"),
                            _key(key), metadata)  # fmt: skip


def _read_mem0(path: Path, app: str | None, user: str | None) -> Iterator[_Fact]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise InvalidInputError(f"{path.name}: not a Mem0 export (JSON)") from None
    if isinstance(data, dict):
        data = data.get("results", data.get("memories"))
    if not isinstance(data, list):
        raise InvalidInputError(f"{path.name}: a Mem0 export is a list of memories or {{results}}")
    for number, record in enumerate(data, 1):
        where = f"{path.name} memory {number}"
        if not isinstance(record, dict):
            raise InvalidInputError(f"{where}: not a JSON object")
        got_app, got_user = _scope(record, app, user, where)
        text = _text(record.get("memory"), where)
        when = _when(record.get("created_at"), where)
        metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else None
        key = str(record.get("id") or _key(path.name, number, text))
        yield _fact(got_app, got_user, text, when, None, _key("mem0", key), metadata)


def _read_adk_sqlite(path: Path, app: str | None, user: str | None) -> Iterator[_Turn]:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    except sqlite3.Error:
        raise InvalidInputError(f"{path.name}: not an SQLite database") from None
    try:
        query = (
            "SELECT app_name, user_id, session_id, event_id, author, timestamp, content_json"
            " FROM memory_events WHERE (? IS NULL OR app_name = ?) AND (? IS NULL OR user_id = ?)"
            " ORDER BY app_name, user_id, session_id, timestamp, id"
        )
        try:
            rows = db.execute(query, (app, app, user, user))
        except sqlite3.Error:
            raise InvalidInputError(
                f"{path.name}: no memory_events table (not ADK's SqliteMemoryService)"
            ) from None
        for number, (r_app, r_user, session, event_id, author, ts, content) in enumerate(rows, 1):
            where = f"{path.name} row {number}"
            check_scope(r_app, r_user)
            try:
                parsed = types.Content.model_validate_json(content)
            except ValueError:
                raise InvalidInputError(f"{where}: content_json is not an ADK Content") from None
            event = Event(
                id=str(event_id)[:64] or _key(session, number),
                author=author or "user",
                invocation_id="import",
                timestamp=float(ts),
                content=parsed,
            )
            yield _Turn(r_app, r_user, str(session), event)
    finally:
        db.close()


_READERS: dict[str, Callable[[Path, str | None, str | None], Iterator[Any]]] = {
    "jsonl": _read_jsonl,
    "mem0": _read_mem0,
    "adk-sqlite": _read_adk_sqlite,
}


def _units(records: Iterator[_Fact | _Turn], batch: int) -> Iterator[list[Any]]:
    """Records in write units: up to ``batch`` facts of one user, or one whole session."""
    unit: list[Any] = []

    def key(r: _Fact | _Turn) -> tuple[str, ...]:
        return (r.app, r.user) if isinstance(r, _Fact) else (r.app, r.user, r.session_id)

    for record in records:
        if unit and (
            key(record) != key(unit[0]) or (isinstance(record, _Fact) and len(unit) >= batch)
        ):
            yield unit
            unit = []
        unit.append(record)
    if unit:
        yield unit


def state_path(source: Path, fmt: str, app: str | None, user: str | None) -> Path:
    """Where an import's progress is kept (one file per source, format, app and user)."""
    stat = source.stat()
    digest = _key(source.resolve(), stat.st_size, stat.st_mtime_ns, fmt, app, user)
    return kit_home() / "imports" / f"{digest}.json"


async def import_memories(
    service: Any,
    source: str | Path,
    *,
    format: str = "jsonl",  # noqa: A002 - the name users type
    app_name: str | None = None,
    user_id: str | None = None,
    batch: int = DEFAULT_BATCH,
    resume: bool = True,
    state_file: str | Path | None = None,
    progress: Callable[[ImportReport], None] | None = None,
) -> ImportReport:
    """Import ``source`` (``format``: ``jsonl``, ``adk-sqlite`` or ``mem0``) into ``service``
    (a ``PgVectorMemoryService``); see the module documentation. ``app_name`` / ``user_id``
    fill or restrict the records' own; ``progress`` is called after each written unit.
    ``resume=False`` starts over (the rows are rewritten, not duplicated)."""
    if format not in FORMATS:
        raise InvalidInputError(f"format must be one of {', '.join(FORMATS)}")
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= 5000:
        raise InvalidInputError("batch must be a whole number between 1 and 5000")
    path = Path(source).expanduser()
    if not path.is_file():
        raise InvalidInputError(f"the import source {path.name!r} is not a readable file")
    if app_name is not None or user_id is not None:
        check_scope(app_name or "app", user_id or "user")
    state = _State(Path(state_file) if state_file else state_path(path, format, app_name, user_id))
    if resume and state.path.is_file():
        state.done = int(json.loads(state.path.read_text(encoding="utf-8")).get("done", 0))
    report = ImportReport(skipped=state.done if resume else 0)
    records = _READERS[format](path, app_name, user_id)
    async with held_slot(await service.store.ready()):
        await _write_units(service, records, batch, state, report, progress)
    state.done, state.complete = report.read, True
    state.save()
    report.complete = True
    return report


async def _write_units(
    service: Any,
    records: Iterator[Any],
    batch: int,
    state: _State,
    report: ImportReport,
    progress: Callable[[ImportReport], None] | None,
) -> None:
    """Each unit through the service's doors, the progress file saved after each."""
    async for unit in _read_units(records, batch):
        first = report.read
        report.read += len(unit)
        if report.read <= report.skipped:
            continue  # finished by an earlier run
        unit = unit[max(report.skipped - first, 0) :]
        if isinstance(unit[0], _Fact):
            written = await service.add_memory(
                app_name=unit[0].app, user_id=unit[0].user, memories=[r.entry for r in unit]
            )
            rejected = sum(o.outcome == "REJECTED" for o in getattr(written, "outcomes", []))
            report.rejected += rejected
            report.written += len(unit) - rejected
        else:
            session = Session(
                id=unit[0].session_id,
                app_name=unit[0].app,
                user_id=unit[0].user,
                events=[r.event for r in unit],
            )
            await service.add_session_to_memory(session)
            report.sessions += 1
            report.written += len(unit)
        state.done = report.read
        state.save()
        if progress is not None:
            progress(report)


async def _read_units(records: Iterator[Any], batch: int) -> AsyncIterator[list[Any]]:
    """The write units, read in a worker thread (a file or an SQLite cursor may be slow)."""
    units = _units(records, batch)
    done = object()
    while True:
        unit = await asyncio.to_thread(next, units, done)
        if unit is done:
            return
        yield unit  # type: ignore[misc]
