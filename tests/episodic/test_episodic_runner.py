"""The episodic log through a real Runner on DatabaseSessionService and the embedded Postgres.

One agent with tools (one of them failing, one handling a secret) transfers to a sub-agent;
a second turn succeeds cleanly. The tests read the log back: order and content of the trace,
tokens and costs, redaction, the first failure, the JSONL export, forget_user, and a log
whose database is down.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncGenerator
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin
from google.adk.runners import Runner
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from adk_memory_kit import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.episodic import ModelPrice
from adk_memory_kit.episodic.pricing import GEMINI_PRICES
from adk_memory_kit.episodic.store import PendingEntry
from adk_memory_kit.pruning.tokens import estimate_content_tokens, estimate_request_tokens
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text

pytestmark = pytest.mark.slow

APP = "episodic_shop"
PASSWORD = "Tr0ub4dor&3xQ"
CARD = "4111 1111 1111 1111"
FIRST_TASK = f"Check order A123, then keep my portal password: my password is {PASSWORD}"
SECOND_TASK = "What is the status of order B7?"


class NoUsageLlm(ScriptedLlm):
    """A scripted model that reports no usage_metadata (as some backends do)."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        async for response in super().generate_content_async(llm_request, stream):
            yield response.model_copy(update={"usage_metadata": None})


def lookup_order(order_id: str) -> dict:
    """Look up an order.

    Args:
      order_id: the order reference.
    """
    return {"order_id": order_id, "status": "shipped", "paid_with": f"card {CARD}"}


def store_secret(service: str, password: str, tool_context: ToolContext) -> dict:
    """Keep a password in the vault.

    Args:
      service: which service.
      password: the password.
    """
    tool_context.state["vault_services"] = [service]
    return {"stored": True, "service": service}


def charge_card(amount: float, card: str) -> dict:
    """Charge a card (always fails: the gateway is down).

    Args:
      amount: amount in EUR.
      card: the card number.
    """
    raise ConnectionError("payment gateway timed out")


def root_reply(request: LlmRequest):
    names = [r.name for r in last_function_responses(request)]
    if not names:
        if "B7" in last_user_text(request):
            return [call("lookup_order", order_id="B7")]
        return [call("lookup_order", order_id="A123"), call("store_secret", service="portal",
                                                             password=PASSWORD)]  # fmt: skip
    if "store_secret" in names:
        return [call("charge_card", amount=10.0, card=CARD)]
    if "charge_card" in names:
        return [call("transfer_to_agent", agent_name="billing")]
    return "Order B7 has shipped."


def build_agent() -> tuple[LlmAgent, ScriptedLlm, ScriptedLlm]:
    root_llm = ScriptedLlm(model="gemini-2.5-flash", responder=root_reply)
    billing_llm = NoUsageLlm(
        model="scripted-offline", responder=lambda r: "The charge failed; no money was taken."
    )
    billing = LlmAgent(
        name="billing", model=billing_llm, instruction="You handle billing problems."
    )
    root = LlmAgent(
        name="shop",
        model=root_llm,
        instruction="You help with orders.",
        tools=[lookup_order, store_secret, charge_card],
        sub_agents=[billing],
    )
    return root, root_llm, billing_llm


async def run_turn(runner: Runner, user_id: str, session_id: str, text: str) -> list:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [
        event
        async for event in runner.run_async(
            user_id=user_id, session_id=session_id, new_message=message
        )
    ]


@pytest.fixture(scope="module")
async def log(db_url):
    episodic = EpisodicLog(db_url)
    yield episodic
    await episodic.close()


@pytest.fixture(scope="module")
async def story(log, sessions):
    """Two turns of one session through the real Runner; the log flushed afterwards."""
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    root, root_llm, billing_llm = build_agent()
    plugins = [EpisodicLogPlugin(log), ReflectAndRetryToolPlugin(max_retries=1)]
    runner = Runner(app=App(name=APP, root_agent=root, plugins=plugins), session_service=sessions)
    session = await sessions.create_session(app_name=APP, user_id=user_id)
    first = await run_turn(runner, user_id, session.id, FIRST_TASK)
    # after the transfer, billing answers this session's next turn: ask in a new one
    other = await sessions.create_session(app_name=APP, user_id=user_id)
    second = await run_turn(runner, user_id, other.id, SECOND_TASK)
    await runner.close()  # flushes the plugin's queue (the log itself stays open)
    return {
        "user_id": user_id,
        "session_id": session.id,
        "other_session_id": other.id,
        "events": (first, second),
        "trace": await log.trace(APP, user_id, session.id),
        "other_trace": await log.trace(APP, user_id, other.id),
        "root_llm": root_llm,
        "billing_llm": billing_llm,
    }


async def test_trace_order_and_content(story):
    trace = story["trace"]
    assert [e.seq for e in trace] == list(range(1, len(trace) + 1))
    assert len({e.invocation_id for e in trace}) == 1
    first = [(e.kind, e.agent, e.name) for e in trace]
    # The two tools of one model turn run concurrently: either order is right.
    parallel = {first[2], first[3]}
    assert parallel == {
        ("tool_call", "shop", "lookup_order"),
        ("tool_call", "shop", "store_secret"),
    }
    assert first[:2] + first[4:] == [
        ("user_message", "shop", "user"),
        ("model_call", "shop", "gemini-2.5-flash"),
        ("state_delta", "shop", "state"),
        ("model_call", "shop", "gemini-2.5-flash"),
        ("tool_error", "shop", "charge_card"),
        ("model_call", "shop", "gemini-2.5-flash"),
        ("tool_call", "shop", "transfer_to_agent"),
        ("transfer", "shop", "billing"),
        ("model_call", "billing", "scripted-offline"),
    ]
    entries = trace
    assert entries[0].payload == {"text": entries[0].payload["text"]}
    calls = entries[1].payload["function_calls"]
    assert [c["name"] for c in calls] == ["lookup_order", "store_secret"]
    lookup = next(e for e in entries if e.name == "lookup_order")
    assert lookup.payload["args"] == {"order_id": "A123"}
    assert lookup.payload["result"]["status"] == "shipped"
    assert lookup.latency_ms is not None and lookup.latency_ms >= 0
    delta = next(e for e in entries if e.kind == "state_delta")
    assert delta.payload["delta"] == {"vault_services": ["portal"]}
    error = next(e for e in entries if e.kind == "tool_error")
    assert error.error_type == "ConnectionError"
    assert error.payload["args"]["amount"] == 10.0
    assert entries[-1].payload["text"] == "The charge failed; no money was taken."
    times = [e.time for e in trace]
    assert times == sorted(times)
    second = [(e.kind, e.name) for e in story["other_trace"]]
    assert second == [
        ("user_message", "user"),
        ("model_call", "gemini-2.5-flash"),
        ("tool_call", "lookup_order"),
        ("model_call", "gemini-2.5-flash"),
    ]


async def test_tokens_and_costs(story, log):
    trace = story["trace"] + story["other_trace"]
    root_calls = [e for e in trace if e.kind == "model_call" and e.agent == "shop"]
    root_requests = story["root_llm"].requests
    assert len(root_calls) == len(root_requests) == 5
    price = GEMINI_PRICES["gemini-2.5-flash"]
    for entry, request in zip(root_calls, root_requests, strict=True):
        # the scripted model reports usage_metadata: taken as reported, not estimated
        assert entry.input_tokens == estimate_request_tokens(request) > 0
        assert entry.output_tokens > 0 and entry.tokens_estimated is False
        expected = (entry.input_tokens * 0.30 + entry.output_tokens * 2.50) / 1_000_000
        assert entry.cost_usd == pytest.approx(expected)
        assert entry.cost_usd == pytest.approx(price.cost(entry.input_tokens, entry.output_tokens))
    billing = [e for e in trace if e.kind == "model_call" and e.agent == "billing"]
    assert len(billing) == 1
    # no usage_metadata: the kit's estimate, marked; an unpriced model: cost unknown
    assert billing[0].tokens_estimated is True
    assert billing[0].input_tokens == estimate_request_tokens(story["billing_llm"].requests[0])
    reply = types.Content(role="model", parts=[types.Part(text=billing[0].payload["text"])])
    assert billing[0].output_tokens == estimate_content_tokens(reply)
    assert billing[0].cost_usd is None

    summary = await log.cost_summary(APP, user_id=story["user_id"])
    total = summary.total
    assert total.model_calls == 6 and total.unpriced_calls == 1 and total.estimated_calls == 1
    assert total.tool_calls == 5  # lookup x2, store_secret, charge_card (error), transfer
    assert total.input_tokens == sum(e.input_tokens for e in root_calls + billing)
    assert total.cost_usd == pytest.approx(sum(e.cost_usd for e in root_calls))
    by_model = {line.key: line for line in summary.by_model}
    assert set(by_model) == {"gemini-2.5-flash", "scripted-offline"}
    assert by_model["scripted-offline"].cost_usd is None
    assert by_model["gemini-2.5-flash"].model_calls == 5
    by_agent = {line.key: line.model_calls for line in summary.by_agent}
    assert by_agent == {"shop": 5, "billing": 1}
    sessions = {story["session_id"], story["other_session_id"]}
    assert {line.key for line in summary.by_session} == sessions
    assert [line.key for line in summary.by_user] == [story["user_id"]]
    later = await log.cost_summary(
        APP, user_id=story["user_id"], since=datetime.now(timezone.utc) + timedelta(hours=1)
    )
    assert later.total.model_calls == 0 and later.total.cost_usd is None


async def test_secrets_are_redacted_before_storing(story, log, db_url):
    trace = story["trace"] + story["other_trace"]
    stored = json.dumps([e.payload for e in trace])
    assert PASSWORD not in stored
    assert CARD not in stored and CARD.replace(" ", "") not in stored
    secret_call = next(e for e in trace if e.name == "store_secret")
    assert secret_call.payload["args"] == {
        "service": "portal",
        "password": "[REDACTED:credential]",
    }
    lookup = next(e for e in trace if e.name == "lookup_order")
    assert lookup.payload["result"]["paid_with"] == "card [REDACTED:payment_card]"
    assert "[REDACTED:credential]" in trace[0].payload["text"]
    # nothing unredacted anywhere in the table, whatever column
    async with operator_connect(log.engine) as conn:
        from sqlalchemy import text

        raw = await conn.execute(
            text(
                "SELECT string_agg(t::text, ' ') FROM adk_episodic_log t WHERE app_name = :a "
                "AND user_id = :u"
            ),  # fmt: skip
            {"a": APP, "u": story["user_id"]},
        )
        everything = raw.scalar_one()
    assert PASSWORD not in everything and "1111 1111" not in everything


async def test_first_failure_is_the_tool_error(story, log):
    failure = await log.first_failure(APP, story["user_id"], story["session_id"])
    assert failure is not None
    assert (failure.kind, failure.name, failure.error_type) == (
        "tool_error",
        "charge_card",
        "ConnectionError",
    )
    assert await log.first_failure(APP, story["user_id"], story["other_session_id"]) is None
    first = story["trace"][0].invocation_id
    assert (await log.first_failure(APP, story["user_id"], story["session_id"], first)) == failure
    assert await log.first_failure(APP, story["user_id"], story["session_id"], "other") is None


async def test_jsonl_export_holds_only_the_successful_invocation(story, log, tmp_path):
    path = tmp_path / "trajectories.jsonl"
    written = await log.export_trajectories(APP, path, user_id=story["user_id"])
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert written == len(lines) == 1
    (line,) = lines
    assert line["task"] == SECOND_TASK
    assert line["steps"] == [
        {
            "agent": "shop",
            "tool": "lookup_order",
            "args": {"order_id": "B7"},
            "result": {
                "order_id": "B7",
                "status": "shipped",
                "paid_with": "card [REDACTED:payment_card]",
            },
        }
    ]
    assert line["final_answer"] == "Order B7 has shipped."
    assert line["model_calls"] == 2 and line["cost_usd"] > 0
    assert line["session_id"] == story["other_session_id"] and "user_id" not in line


async def test_forget_user_removes_that_users_rows_and_nothing_else(log):
    app, other_app = f"forget-{uuid.uuid4().hex[:6]}", f"keep-{uuid.uuid4().hex[:6]}"
    for app_name, user_id, session_id in [
        (app, "gone", "s1"), (app, "gone", "s2"), (app, "stays", "s1"), (other_app, "gone", "s1")
    ]:  # fmt: skip
        for i in range(3):
            entry = PendingEntry(app_name, user_id, session_id, "inv", "a", "tool_call", f"t{i}")
            log.append(entry)
    # queued entries are written before the delete, so none survive it
    assert await log.forget_user(app, "gone") == 6
    assert await log.count_for_user(app, "gone") == 0
    assert await log.count_for_user(app, "stays") == 3
    assert await log.count_for_user(other_app, "gone") == 3
    assert [e.name for e in await log.trace(app, "stays", "s1")] == ["t0", "t1", "t2"]


async def test_purge_expired_deletes_only_old_rows(log):
    app = f"purge-{uuid.uuid4().hex[:6]}"
    old = datetime.now(timezone.utc) - timedelta(days=40)
    log.append(PendingEntry(app, "u", "s", "i", "a", "tool_call", "old", time=old.timestamp()))
    log.append(PendingEntry(app, "u", "s", "i", "a", "tool_call", "new"))
    await log.flush()
    assert await log.purge_expired(30) >= 1
    assert [e.name for e in await log.trace(app, "u", "s")] == ["new"]


async def test_payload_above_the_cap_is_truncated_with_size_and_hash(db_url):
    small = EpisodicLog(db_url, max_payload_bytes=1024)
    try:
        small.append(PendingEntry("cap", "u", "s", "i", "a", "tool_call", "big",
                                  payload={"result": "x" * 5000}))  # fmt: skip
        await small.flush()
        (entry,) = await small.trace("cap", "u", "s")
    finally:
        await small.close()
    assert entry.payload["truncated"] is True
    assert entry.payload["size"] > 5000 and len(entry.payload["sha256"]) == 64
    assert len(entry.payload["head"]) < 1024


async def test_a_failing_store_never_breaks_the_turn(sessions, caplog):
    down = EpisodicLog(
        "postgresql+psycopg://nobody:nothing@127.0.0.1:1/none?connect_timeout=2",
        prices={"scripted-offline": ModelPrice(input_per_mtok=1, output_per_mtok=1)},
    )
    root, _, _ = build_agent()
    plugins = [EpisodicLogPlugin(down), ReflectAndRetryToolPlugin(max_retries=1)]
    runner = Runner(app=App(name=APP, root_agent=root, plugins=plugins), session_service=sessions)
    user_id = f"down-{uuid.uuid4().hex[:6]}"
    session = await sessions.create_session(app_name=APP, user_id=user_id)
    with caplog.at_level(logging.WARNING, logger="adk_memory_kit.episodic"):
        events = await run_turn(runner, user_id, session.id, FIRST_TASK)
        await down.flush()
    await runner.close()
    await down.close()
    final = [e for e in events if e.is_final_response() and e.content and e.content.parts]
    assert final[-1].content.parts[0].text == "The charge failed; no money was taken."
    assert down.failed_writes >= 10 and down.pending == 0
    warnings = [r.getMessage() for r in caplog.records if r.name.startswith("adk_memory_kit")]
    assert warnings and all("could not write" in w for w in warnings)
    assert all(PASSWORD not in w and "A123" not in w for w in warnings)


class BrokenLog(EpisodicLog):
    """A log whose every append fails (a bug, or anything unexpected in a callback)."""

    def append(self, entry: PendingEntry) -> None:
        raise RuntimeError(f"broken while holding {entry.payload!r}")


async def test_a_failing_callback_never_breaks_the_turn(db_url, sessions, caplog):
    broken = BrokenLog(db_url)
    plugin = EpisodicLogPlugin(broken)
    root, _, _ = build_agent()
    plugins = [plugin, ReflectAndRetryToolPlugin(max_retries=1)]
    runner = Runner(app=App(name=APP, root_agent=root, plugins=plugins), session_service=sessions)
    user_id = f"broken-{uuid.uuid4().hex[:6]}"
    session = await sessions.create_session(app_name=APP, user_id=user_id)
    with caplog.at_level(logging.WARNING, logger="adk_memory_kit.episodic"):
        events = await run_turn(runner, user_id, session.id, FIRST_TASK)
    await runner.close()
    await broken.close()
    final = [e for e in events if e.is_final_response() and e.content and e.content.parts]
    assert final[-1].content.parts[0].text == "The charge failed; no money was taken."
    assert plugin.callback_errors >= 10
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "RuntimeError" in logged and PASSWORD not in logged and "A123" not in logged
