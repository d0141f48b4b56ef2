"""Every public write of the kit passes the one redaction gate: secrets planted in every
field of every writing entry point, then every column of every kit table is read back (the
tables come from the database catalog, not a list) and no secret is found verbatim.
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.events import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.routing.review_queue import ReviewQueue
from tests.support.privacy_scan import leaks, tables

pytestmark = pytest.mark.slow


def _secrets() -> dict[str, str]:
    """One distinct, detectable secret per field (each a kind the detectors cover)."""
    tag = uuid.uuid4().hex[:6]
    return {
        "text": "4111 1111 1111 1111",
        "author": f"glpat-{tag}Kd82jLq0PzXw19",
        "subject": "DE89 3704 0044 0532 0130 00",
        "tag": f"hf_{tag}QpLmZnXbVcRtYuIoPaSdFgHjKlQw",
        "meta_key": f"shpat_{tag}0a1b2c3d4e5f60718293a4b5c6",
        "meta_value": "078-05-1120",
        "event_text": f"npm_{tag}AbCdEfGhIjKlMnOpQrStUvWxYz0123",
        "event_author": f"SG.{tag}abcdefghijklmnop.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ",
        "session_text": "GB82 WEST 1234 5698 7654 32",
        "pin_reason": f"sk-proj-{tag}Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2",
        "correction_text": "5500 0000 0000 0004",
        "correction_reason": f"dop_v1_{tag}" + "ab" * 29,
        "review_text": "AKIAIOSFODNN7EXAMPLE",
        "review_note": f"xoxb-123456789012-123456789012-{tag}abcdefghijklmnopq",
    }


def _content(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def test_no_secret_reaches_any_kit_column(memory, sessions, db_url):
    s = _secrets()
    app, user = "gate_app", f"u-{uuid.uuid4().hex[:8]}"
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[
            MemoryEntry(
                content=_content(f"my card is {s['text']} for the gym"),
                author=f"agent {s['author']}",
                custom_metadata={
                    "subject": f"account {s['subject']}",
                    "tags": ["billing", f"token {s['tag']}"],
                    f"key {s['meta_key']}": f"ssn {s['meta_value']}",
                },
            )
        ],
    )
    await memory.add_events_to_memory(
        app_name=app,
        user_id=user,
        session_id="s1",
        events=[
            Event(
                author=f"user {s['event_author']}",
                invocation_id="i1",
                content=_content(f"use {s['event_text']} for the registry"),
            )
        ],
        custom_metadata={"note": f"pasted {s['event_text']}"},
    )
    session = await sessions.create_session(app_name=app, user_id=user)
    await sessions.append_event(
        session,
        Event(author="user", invocation_id="i2", content=_content(f"IBAN {s['session_text']}")),
    )
    await memory.add_session_to_memory(await sessions.get_session(
        app_name=app, user_id=user, session_id=session.id
    ))  # fmt: skip
    found = await memory.search_memory(app_name=app, user_id=user, query="card for the gym")
    row_id = found.memories[0].id
    await memory.curator.pin_memory(
        app_name=app, user_id=user, memory_id=row_id, reason=f"key {s['pin_reason']}"
    )
    await memory.curator.correct_memory(
        app_name=app,
        user_id=user,
        memory_id=row_id,
        new_text=f"my new card is {s['correction_text']}",
        reason=f"rotated, token {s['correction_reason']}",
    )
    async with ReviewQueue(db_url) as queue:
        item = await queue.submit(
            app_name=app, user_id=user, text=f"remember key {s['review_text']}"
        )
        await queue.approve(item.id, by="ops", note=f"fine, slack {s['review_note']}")

    kit_tables = await tables(db_url)
    assert len(kit_tables) >= 3  # memory, snapshots, review queue at least
    assert await leaks(db_url, list(s.values())) == []
    # the sentences around the secrets were kept (granular redaction)
    text = (await memory.search_memory(app_name=app, user_id=user, query="new card")).memories
    assert any("my new card is [REDACTED:payment_card]" in m.content.parts[0].text for m in text)
