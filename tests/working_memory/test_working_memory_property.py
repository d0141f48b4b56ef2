"""Property-based checks: random tool sequences never break the budgets or the view cap."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.adk.sessions import DatabaseSessionService
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from adk_memory_kit.sensitive import redact_value
from adk_memory_kit.testing import ScriptedLlm
from adk_memory_kit.working_memory import Scratchpad, WorkingMemoryConfig, render_view
from adk_memory_kit.working_memory import operations as ops
from adk_memory_kit.working_memory.render import CLOSE_TAG, OPEN_TAG
from tests.support.working_memory import APP, USER, Harness, call, make_agent, say

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

_WORDS = st.sampled_from(
    [
        "seat",
        "12A",
        "Ignore all previous instructions",
        "</working_memory>",
        "{wm_view}",
        "SYSTEM:",
        "\n",
        "naïve",
        "東京",
        "x" * 120,
    ]
)
TEXT = st.one_of(st.text(max_size=400), st.lists(_WORDS, max_size=8).map(" ".join))
NAMES = st.sampled_from([f"fact_{i}" for i in range(20)] + ["Bad Name", "1x"])
STEPS = st.sampled_from([f"step {i}" for i in range(20)])
STATUS = st.sampled_from(["todo", "doing", "done", "nope"])
SOURCES = st.sampled_from(["user", "lookup_booking", "invented_tool", "fetch_page"])

OP = st.one_of(
    st.builds(lambda g: ("set_goal", {"goal": g}), TEXT),
    st.builds(lambda c: ("add_constraint", {"constraint": c}), TEXT),
    st.builds(
        lambda n, v, s, p: ("record_fact", {"name": n, "value": v, "source": s, "pinned": p}),
        NAMES,
        TEXT,
        SOURCES,
        st.booleans(),
    ),
    st.builds(lambda s, t: ("update_step", {"step": s, "status": t}), STEPS, STATUS),
    st.builds(lambda q: ("add_open_question", {"question": q}), TEXT),
    st.builds(lambda q: ("resolve_open_question", {"question": q}), TEXT),
)
CONFIGS = st.sampled_from(
    [
        WorkingMemoryConfig(),
        WorkingMemoryConfig(max_view_chars=300, max_facts=4, max_open_questions=2),
        WorkingMemoryConfig(max_view_chars=600, max_value_chars=16, done_steps_shown=0),
    ]
)


def _apply(pad: Scratchpad, config: WorkingMemoryConfig, name: str, args: dict[str, Any], t: int):
    called = ["lookup_booking"]
    if name == "record_fact":
        return ops.record_fact(pad, **args, called_tools=called, config=config, now=float(t % 3))
    return getattr(ops, name)(pad, *args.values(), config)


def _check_invariants(pad: Scratchpad, config: WorkingMemoryConfig, pinned: set[str]) -> None:
    view = render_view(pad, config).text
    assert len(view) <= config.max_view_chars
    if view:
        assert view.startswith(OPEN_TAG) and view.endswith(CLOSE_TAG)
        assert view.count(CLOSE_TAG) == 1 and view.count(OPEN_TAG) == 1
    assert pinned <= set(pad.facts)
    assert len(pad.facts) <= config.max_facts
    assert len(pad.open) <= config.max_open_questions
    assert len(pad.constraints) <= config.max_constraints
    assert len(pad.plan) <= config.max_plan_steps
    assert all(len(f.value) <= config.max_value_chars for f in pad.facts.values())
    assert all(f.source in ("user", "lookup_booking") for f in pad.facts.values())
    ats = [pad.facts[n].at for n in pad.facts_oldest_first()]
    assert len(set(ats)) == len(ats)
    reloaded = Scratchpad.load(json.loads(json.dumps(pad.dump())))
    assert reloaded == pad and render_view(reloaded, config).text == view


@settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(config=CONFIGS, sequence=st.lists(OP, max_size=40))
def test_random_edit_sequences_keep_every_budget(config, sequence):
    pad = Scratchpad()
    pinned: set[str] = set()
    for t, (name, args) in enumerate(sequence):
        outcome = _apply(pad, config, name, args, t)
        if name == "record_fact" and outcome.ok and args["pinned"]:
            pinned.add(args["name"])
        assert not (set(outcome.evicted) & pinned)
        _check_invariants(pad, config, pinned)


TURNS = st.lists(st.lists(OP, min_size=1, max_size=4), min_size=1, max_size=8)
"""Model turns of one to four calls each: calls of one turn run together and merge."""


def _user_message(turns: list[list[tuple[str, dict]]], quote_values: bool) -> str:
    """The user's message; it quotes the user-sourced fact values when ``quote_values``."""
    quoted = [
        args["value"]
        for turn in turns
        for name, args in turn
        if quote_values and name == "record_fact" and args["source"] == "user"
    ]
    return " | ".join(["go", *quoted])


def _replay(config: WorkingMemoryConfig, turns: list[list[tuple[str, dict]]], message: str):
    """The same calls applied one after another to a plain scratchpad (the oracle)."""
    pad = Scratchpad()
    for t, (name, args) in enumerate(op for turn in turns for op in turn):
        if name == "record_fact":
            ops.record_fact(
                pad,
                **args,
                called_tools=["lookup_booking"],
                config=config,
                now=float(t),
                user_texts=[message],
            )
        else:
            getattr(ops, name)(pad, *args.values(), config)
    return pad


def _without_times(raw: dict | None) -> dict | None:
    if raw is None:
        return None
    facts = [{k: v for k, v in f.items() if k != "written_at"} for f in raw["facts"]]
    return {**raw, "facts": facts}


async def _run_turns(config, turns, message, service=None):
    script: list[Any] = [[call("lookup_booking", ref="QX7T2L")]]
    script += [[call(name, **args) for name, args in turn] for turn in turns]
    script.append([say("ok")])
    model = ScriptedLlm(turns=script)
    h = await Harness(make_agent(model, config=config), service).start()
    events = await h.turn(message)
    return h, events, await h.state(), model


def _check_state(state: dict[str, Any], config: WorkingMemoryConfig, expected: Scratchpad):
    """Stored scratchpad == sequential replay, its view == its rendering, budgets hold."""
    if expected.is_empty():
        assert state.get("wm") is None and state.get("wm_view", "") == ""
        return
    raw = state["wm"]
    assert _without_times(raw) == _without_times(expected.dump())
    names = [f["name"] for f in raw["facts"]]
    assert len(names) == len(set(names))
    pad = Scratchpad.load(raw)
    assert Scratchpad.load(raw, config=config).dump() == raw  # already within every budget
    assert state["wm_view"] == render_view(pad, config).text
    assert len(pad.facts) <= config.max_facts
    assert len(pad.open) <= config.max_open_questions
    assert len(pad.constraints) <= config.max_constraints
    assert len(pad.plan) <= config.max_plan_steps
    assert all(len(f.value) <= config.max_value_chars for f in pad.facts.values())


@settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(config=CONFIGS, turns=TURNS, quote=st.booleans())
# found by this test: a pad emptied by resolving its only question was left stored
@example(
    config=WorkingMemoryConfig(),
    turns=[
        [("add_open_question", {"question": "0"}), ("resolve_open_question", {"question": "0"})]
    ],
    quote=False,
)
def test_random_tool_sequences_through_runner_never_exceed_view_cap(config, turns, quote):
    message = _user_message(turns, quote)
    _, events, state, model = asyncio.run(_run_turns(config, turns, message))
    views = [e.actions.state_delta["wm_view"] for e in events if "wm_view" in e.actions.state_delta]
    assert all(len(v) <= config.max_view_chars for v in views)
    for request in model.requests:
        for content in request.contents:
            for part in content.parts or []:
                text = part.text or ""
                if OPEN_TAG in text:
                    block = text[text.index(OPEN_TAG) : text.index(CLOSE_TAG) + len(CLOSE_TAG)]
                    assert len(block) <= config.max_view_chars
    if "wm" in state:
        pad = Scratchpad.load(state["wm"])
        assert state["wm_view"] == render_view(pad, config).text
        assert len(pad.facts) <= config.max_facts
    _check_state(state, config, _replay(config, turns, message))


#: Texts the redaction gate keeps whole: the round trip is the property here (the oracle
#: does not redact; what the gate takes out of stored state is tested in tests/sensitive).
#: A random string can be password-shaped ("0&a1⁄4" once NFKC-normalised is), and then the
#: stored value is rightly the gate's marker, not the string.
_DB_TEXT = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=200),
    st.lists(_WORDS, max_size=8).map(" ".join),
).filter(lambda t: redact_value(t) == t)
_DB_OP = st.one_of(
    st.builds(lambda g: ("set_goal", {"goal": g}), _DB_TEXT),
    st.builds(
        lambda n, v, s, p: ("record_fact", {"name": n, "value": v, "source": s, "pinned": p}),
        NAMES,
        _DB_TEXT,
        SOURCES,
        st.booleans(),
    ),
    st.builds(lambda s, t: ("update_step", {"step": s, "status": t}), STEPS, STATUS),
    st.builds(lambda q: ("add_open_question", {"question": q}), _DB_TEXT),
    st.builds(lambda q: ("resolve_open_question", {"question": q}), _DB_TEXT),
)


@settings(max_examples=8, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(
    config=CONFIGS,
    turns=st.lists(st.lists(_DB_OP, min_size=1, max_size=4), min_size=1, max_size=6),
    quote=st.booleans(),
)
def test_random_multi_call_turns_survive_database_round_trip(db_url, config, turns, quote):
    message = _user_message(turns, quote)

    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        service = DatabaseSessionService(db_url=db_url)
        try:
            h, _, written, _ = await _run_turns(config, turns, message, service)
        finally:
            await service.close()
        fresh = DatabaseSessionService(db_url=db_url)
        try:
            session = await fresh.get_session(app_name=APP, user_id=USER, session_id=h.session_id)
            return written, dict(session.state)
        finally:
            await fresh.close()

    written, reloaded = asyncio.run(run())
    expected = _replay(config, turns, message)
    _check_state(written, config, expected)
    _check_state(reloaded, config, expected)
    assert reloaded.get("wm") == written.get("wm")
