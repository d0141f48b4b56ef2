"""A deterministic third of the privacy corpus's positives (all of them with
``KIT_PRIVACY_E2E_STEP=1``) through a real Runner, then every kit table read.

The agent (a scripted model) passes each user message to a tool and echoes it in its reply,
so each secret reaches the session, the tool arguments and results, the model requests and
responses; the routing plugin, the checkpoint plugin and the episodic log plugin run on every
turn, the memory service stores whole transcripts (the strictest policy) and each session is
closed (ingested). Then every column of every kit table (from the catalog) is read for every
secret. ADK's own tables keep the raw turn by design (docs/privacy.md) and are not read here;
``test_user_message_plugin`` covers them.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import uuid
from pathlib import Path

import pytest
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.runners import Runner
from google.genai import types

from adk_memory_kit import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.lifecycle import MemoryCheckpointPlugin, SessionCloser
from adk_memory_kit.routing import MemoryApplier, MemoryRoutingPlugin, ReviewQueue
from adk_memory_kit.sensitive import SECRET_DETECTORS, detect_sensitive, redact
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text
from tests.support.privacy_scan import leaks

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "detectors.py"
TURNS_PER_SESSION = 40
#: A deterministic third of the positives (every kind; the whole corpus takes ~10 minutes
#: on a shared 2-core machine): KIT_PRIVACY_E2E_STEP=1 runs all of them,
#: KIT_PRIVACY_E2E_LIMIT=N only the first N (a quick loop).
STEP = int(os.environ.get("KIT_PRIVACY_E2E_STEP", "3"))
LIMIT = int(os.environ.get("KIT_PRIVACY_E2E_LIMIT", "0")) or None
#: KIT_PRIVACY_E2E_CORPUS=PATH reads another corpus of the same shape (a first read, e.g.
#: benchmarks/data/privacy_first_read_w1.jsonl; run with -s for the stored/total line).
CORPUS = os.environ.get("KIT_PRIVACY_E2E_CORPUS")


def _positives() -> list[dict]:
    spec = importlib.util.spec_from_file_location("detectors_bench_e2e", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    rows = module.load(Path(CORPUS)) if CORPUS else module.load()
    return [r for r in rows if r["label"] == "positive" and r["secrets"]]


def keep_note(detail: str) -> dict:
    """Keep a note for the user.

    Args:
      detail: what to keep.
    """
    return {"kept": True, "detail": detail}


def responder(request):
    if not last_function_responses(request):
        return [call("keep_note", detail=last_user_text(request))]
    return f"Noted: {last_user_text(request)}"


def _needle(text: str, secret: str) -> str:
    if len(secret) >= 8:
        return secret
    at = text.index(secret)
    return text[max(0, at - 8) : at + len(secret)]


async def test_no_corpus_secret_reaches_a_kit_table(sessions, embedder, db_url):
    rows = _positives()[::STEP][:LIMIT]
    assert CORPUS or len({r["kind"] for r in rows}) >= 20
    app_name, user = f"e2e_{uuid.uuid4().hex[:8]}", "u1"
    memory = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, write_policy=WritePolicy.FULL_TRANSCRIPT
    )
    queue = ReviewQueue(db_url)
    log = EpisodicLog(db_url)
    agent = LlmAgent(
        name="keeper", model=ScriptedLlm(responder=responder), tools=[keep_note],
        instruction="Keep what the user says.",
    )  # fmt: skip
    app = App(
        name=app_name,
        root_agent=agent,
        plugins=[
            MemoryRoutingPlugin(applier=MemoryApplier(review_queue=queue)),
            MemoryCheckpointPlugin(),
            EpisodicLogPlugin(log),
        ],
    )
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    closer = SessionCloser(sessions, memory)
    try:
        for start in range(0, len(rows), TURNS_PER_SESSION):
            session = await sessions.create_session(app_name=app_name, user_id=user)
            for row in rows[start : start + TURNS_PER_SESSION]:
                message = types.Content(role="user", parts=[types.Part(text=row["text"])])
                async for _ in runner.run_async(
                    user_id=user, session_id=session.id, new_message=message
                ):
                    pass
            assert (await closer.close(app_name, user, session.id)).ok
        await log.flush()
    finally:
        await runner.close()
        await queue.close()
        await log.close()
        await memory.close()
    secrets = [s for r in rows for s in r["secrets"]]
    # a short secret (PIN, CVV) is looked for with the words before it ("cvv 279"), so a
    # number that happens to contain it (a latency, a float of an embedding) is not a leak
    needles = [_needle(r["text"], s) for r in rows for s in r["secrets"]]
    # the secrets the detectors miss on their own (their held-out misses) are not the
    # pipeline's: the pipeline must add no leak of its own to them
    # (computed from the detectors, not from the gate under test)
    missed = {
        s
        for r in rows
        for s in r["secrets"]
        if s in redact(r["text"], detect_sensitive(r["text"], SECRET_DETECTORS))
    }
    leaked = await leaks(db_url, needles, app=app_name)
    by_secret = {secrets[int(x.rsplit("#", 1)[1])] for x in leaked}
    print(f"\nend to end: {len(by_secret)} of {len(set(secrets))} secrets reached a kit table")
    assert by_secret <= missed, sorted(
        x for x in leaked if secrets[int(x.rsplit("#", 1)[1])] not in missed
    )
    assert len(missed) <= 0.01 * len(secrets)
