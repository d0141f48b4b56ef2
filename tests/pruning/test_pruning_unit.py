"""Unit tests for the pruning callback: selection, window, tombstones, copy-on-write."""

from __future__ import annotations

import copy
import json
import logging

import pytest
from google.genai import types

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.pruning import (
    STATE_KEY,
    PrunedPayload,
    PruneStaleToolPayloads,
    PruningReport,
    default_tombstone,
)
from tests.support.pruning import (
    big_text,
    call,
    dump,
    is_tombstone,
    make_context,
    model,
    request_of,
    research_contents,
    response,
    responses,
    user,
)


def pruned(contents, **options):
    """Run a fresh pruner (no context) over ``contents`` and return the new contents."""
    request = request_of(contents)
    PruneStaleToolPayloads(**{"prunable": {"web_search"}, **options})(None, request)
    return request.contents


def test_prunable_tool_is_pruned_and_other_tools_are_not() -> None:
    contents = [
        user("go"),
        call("web_search", "s1", query="a"),
        response("web_search", "s1", {"result": big_text(1000)}),
        call("read_file", "r1", path="x"),
        response("read_file", "r1", {"result": big_text(1000)}),
        *[model(f"m{i}") for i in range(4)],
    ]
    out = responses(pruned(contents))
    assert is_tombstone(out[0]) and out[0].name == "web_search"
    assert out[1].response == {"result": big_text(1000)}


def test_predicate_selects_prunable_tools() -> None:
    contents = [
        user("go"),
        call("fetch_page", "p1", url="u"),
        response("fetch_page", "p1", {"html": big_text(800)}),
        call("web_search", "s1", query="q"),
        response("web_search", "s1", {"result": big_text(800)}),
        *[model(f"m{i}") for i in range(4)],
    ]
    out = responses(pruned(contents, prunable=lambda name: name.startswith("fetch_")))
    assert [is_tombstone(fr) for fr in out] == [True, False]


def test_single_name_string_is_one_tool_not_characters() -> None:
    contents = [call("w", "1"), response("w", "1", {"r": big_text(500)}), *[model("m")] * 4]
    assert not is_tombstone(responses(pruned(contents, prunable="web_search"))[0])
    assert is_tombstone(responses(pruned(contents, prunable="w"))[0])


@pytest.mark.parametrize("keep_recent", [0, 1, 2, 4, 6, 20])
def test_keep_recent_window_is_never_touched(keep_recent: int) -> None:
    contents = research_contents(5, tokens=500)  # 21 contents; responses at 2, 6, 10, 14, 18
    out = pruned(contents, keep_recent=keep_recent)
    limit = len(contents) - keep_recent
    for index, (before, after) in enumerate(zip(contents, out, strict=True)):
        fr = after.parts[0].function_response
        if index >= limit:
            assert after is before
        elif fr is not None and fr.name == "web_search":
            assert is_tombstone(fr), index
        else:
            assert after is before


def test_small_payloads_are_left_alone() -> None:
    contents = [
        call("web_search", "a", query="q"),
        response("web_search", "a", {"result": big_text(150)}),
        call("web_search", "b", query="q"),
        response("web_search", "b", {"result": big_text(250)}),
        *[model("m")] * 4,
    ]
    default = responses(pruned(contents))  # min_payload_tokens=200
    assert [is_tombstone(fr) for fr in default] == [False, True]
    strict = responses(pruned(contents, min_payload_tokens=1000))
    assert not any(is_tombstone(fr) for fr in strict)


def test_never_replaces_a_payload_with_a_larger_tombstone() -> None:
    contents = [call("web_search", "a"), response("web_search", "a", {"r": "tiny"}), model("m")]
    out = pruned(contents, keep_recent=0, min_payload_tokens=0)
    assert responses(out)[0].response == {"r": "tiny"}


def test_default_tombstone_is_exact_and_stable() -> None:
    """A golden value: catches clocks, random ids or hash randomisation in tombstones."""
    contents = [
        call("web_search", "call-7", query="q"),
        response("web_search", "call-7", {"result": "abc " * 300, "rank": 1}),
        *[model("m")] * 4,
    ]
    tombstone = responses(pruned(contents))[0].response
    assert tombstone == {
        "status": "pruned",
        "tool": "web_search",
        "call_id": "call-7",
        "original_tokens": 309,  # ceil((1222 JSON chars) / 4) + 3 for the name
        "sha256": "72c80c492474",
        "note": "Raw web_search result removed from the context to save tokens. "
        "Call get_findings for the distilled findings.",
    }


def test_tombstones_are_deterministic_and_key_order_independent() -> None:
    a = {"result": big_text(600), "meta": {"x": 1, "y": [1, 2]}}
    b = {"meta": {"y": [1, 2], "x": 1}, "result": big_text(600)}
    contents_a = [call("web_search", "1"), response("web_search", "1", a), *[model("m")] * 4]
    contents_b = [call("web_search", "1"), response("web_search", "1", b), *[model("m")] * 4]
    pruner = PruneStaleToolPayloads({"web_search"})
    first, again = request_of(contents_a), request_of(contents_a)
    pruner(None, first)
    pruner(None, again)  # warm tombstone cache
    other = pruned(contents_b)  # another instance, other key order
    assert dump(first.contents) == dump(again.contents) == dump(other)
    changed = copy.deepcopy(a)
    changed["meta"]["x"] = 2
    contents_c = [call("web_search", "1"), response("web_search", "1", changed), *contents_a[2:]]
    assert dump(pruned(contents_c)) != dump(first.contents)


def test_input_objects_are_never_mutated_and_untouched_contents_are_reused() -> None:
    contents = research_contents(4, tokens=800)
    snapshot = dump(contents)
    payload_ids = [id(fr.response) for fr in responses(contents)]
    request = request_of(contents)
    PruneStaleToolPayloads({"web_search"})(None, request)
    assert dump(contents) == snapshot
    assert [id(fr.response) for fr in responses(contents)] == payload_ids
    assert request.contents is not contents
    pairs = zip(contents, request.contents, strict=True)
    changed = [i for i, (a, b) in enumerate(pairs) if a is not b]
    assert changed == [2, 6, 10]  # the three search responses outside the window
    for i in changed:
        old, new = contents[i].parts[0], request.contents[i].parts[0]
        assert new is not old and new.function_response is not old.function_response


def test_function_call_and_response_pairs_are_kept() -> None:
    contents = research_contents(6, tokens=700)
    parallel = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id=f"p{i}", name="web_search", response={"result": big_text(700)}
                )
            )
            for i in range(3)
        ],
    )
    contents[1:1] = [
        types.Content(
            role="model",
            parts=[
                types.Part(function_call=types.FunctionCall(id=f"p{i}", name="web_search"))
                for i in range(3)
            ],
        ),
        parallel,
    ]
    out = pruned(contents, keep_recent=2)
    assert len(out) == len(contents)
    for before, after in zip(contents, out, strict=True):
        assert before.role == after.role
        assert len(before.parts) == len(after.parts)
        for p, q in zip(before.parts, after.parts, strict=True):
            assert bool(p.function_call) == bool(q.function_call)
            if p.function_response:
                assert (q.function_response.id, q.function_response.name) == (
                    p.function_response.id,
                    p.function_response.name,
                )
    assert all(is_tombstone(p.function_response) for p in out[2].parts)


def test_tombstone_options() -> None:
    contents = [
        call("web_search", "1"),
        response("web_search", "1", {"r": big_text(500)}),
        *[model("m")] * 4,
    ]
    fixed = responses(pruned(contents, tombstone={"pruned": True}))[0]
    assert fixed.response == {"pruned": True}

    def factory(payload: PrunedPayload) -> dict:
        return {"gone": payload.tool, "tokens": payload.tokens, "digest": payload.digest}

    made = responses(pruned(contents, tombstone=factory))[0].response
    assert made["gone"] == "web_search" and made["tokens"] > 400 and len(made["digest"]) == 12
    plain = responses(pruned(contents, findings_tool=None))[0].response
    assert "get_findings" not in plain["note"]
    other = responses(pruned(contents, findings_tool="recall_notes"))[0].response
    assert "Call recall_notes" in other["note"]
    with pytest.raises(TypeError):
        PruneStaleToolPayloads({"web_search"}, tombstone=42)  # type: ignore[arg-type]


def test_default_tombstone_lists_removed_media_parts() -> None:
    payload = PrunedPayload("t", None, 900, 3000, "abc", media_parts=2)
    tombstone = default_tombstone(payload, findings_tool=None)
    assert tombstone["media_parts_removed"] == 2 and "call_id" not in tombstone


@pytest.mark.parametrize(
    "options",
    [
        {"keep_recent": -1},
        {"min_payload_tokens": -5},
        {"threshold_tokens": 0},
        {"keep_recent": "4"},
        {"keep_recent": True},
        {"min_payload_tokens": 2.5},
        {"threshold_tokens": float("nan")},
    ],
)
def test_invalid_options_are_rejected_with_a_kit_error_naming_them(options: dict) -> None:
    (name,) = options
    with pytest.raises(InvalidInputError, match=name):
        PruneStaleToolPayloads({"web_search"}, **options)


def test_a_report_needs_room_for_one_record() -> None:
    with pytest.raises(InvalidInputError, match="max_records"):
        PruningReport(max_records=0)


def test_malformed_requests_are_handled() -> None:
    for empty in ([], None):
        request = request_of([])
        request.contents = empty
        PruneStaleToolPayloads({"web_search"})(None, request)
        assert request.contents == []

    odd = [
        types.Content(role="user", parts=None),
        types.Content(role="model", parts=[]),
        types.Content(role="user", parts=[types.Part()]),  # no function response
        response("web_search", "a", big_text(900)),  # a string, not a dict
        response("web_search", "b", [big_text(900)]),  # a list
        response("web_search", "c", None),
        response(None, "d", {"r": big_text(900)}),  # no tool name
        response("web_search", "e", {"r": b"\x00" * 4000, "when": {1, 2}}),  # not JSON data
        call("web_search", "f"),
        response("web_search", "f", {"result": big_text(900)}),
        *[model("m")] * 4,
    ]
    request = request_of(odd)
    request.contents.insert(0, {"not": "a Content"})  # type: ignore[arg-type]
    PruneStaleToolPayloads({"web_search"})(None, request)
    out = request.contents
    assert out[0] == {"not": "a Content"}
    frs = responses(out[1:])
    by_id = {fr.id: fr for fr in frs}
    assert is_tombstone(by_id["a"]) and is_tombstone(by_id["b"]) and is_tombstone(by_id["f"])
    assert by_id["c"].response is None
    assert by_id["d"].response == {"r": big_text(900)}
    assert is_tombstone(by_id["e"])


def test_a_failing_predicate_leaves_the_request_unchanged(caplog) -> None:
    def boom(name: str) -> bool:
        raise RuntimeError("bad predicate")

    contents = research_contents(3)
    request = request_of(contents)
    original = request.contents
    with caplog.at_level(logging.ERROR):
        result = PruneStaleToolPayloads(boom)(None, request)
    assert result is None and request.contents is original
    assert "pruning failed" in caplog.text


async def test_records_tokens_in_report_and_temp_state() -> None:
    context = await make_context()
    pruner = PruneStaleToolPayloads({"web_search"})
    request = request_of(research_contents(4, tokens=1000), instruction="be brief")
    pruner(context, request)
    (record,) = pruner.report.records()
    assert record.tokens_before > record.tokens_after > 0
    assert record.pruned_parts == 3 and record.contents == 17
    assert record.session_id == context.session.id and record.invocation_id == "inv-1"
    assert record.saved_tokens == record.tokens_before - record.tokens_after
    state = context.state[STATE_KEY]
    assert state["tokens_after"] == record.tokens_after
    assert context.actions.state_delta[STATE_KEY]["call"] == record.call
    assert "| 1 |" in pruner.report.format_table()
    assert json.loads(json.dumps(pruner.report.to_dicts()))[0]["pruned_parts"] == 3
