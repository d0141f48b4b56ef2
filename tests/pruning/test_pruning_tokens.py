"""Token estimates, accounting records and properties of the pruning pass."""

from __future__ import annotations

import json

from google.adk.events.event import Event
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from adk_memory_kit.pruning import (
    METADATA_KEY,
    PruneStaleToolPayloads,
    PruningReport,
    estimate_content_tokens,
    estimate_request_tokens,
    estimate_text_tokens,
)
from adk_memory_kit.pruning.tokens import MEDIA_PART_TOKENS, json_length
from tests.support.pruning import (
    big_text,
    call,
    dump,
    make_context,
    model,
    request_of,
    response,
    responses,
    user,
)


def test_text_estimate_is_chars_over_four_rounded_up() -> None:
    assert [estimate_text_tokens(t) for t in (None, "", "abcd", "abcde", "x" * 400)] == [
        0,
        0,
        1,
        2,
        100,
    ]


def test_request_estimate_counts_text_calls_responses_media_and_instruction() -> None:
    image = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))
    contents = [
        user("a" * 40),  # 10
        call("web_search", "1", query="abcdefgh"),  # name 3 + {"query":"abcdefgh"} 20 -> 5
        response("web_search", "1", {"result": "b" * 90}),  # 3 + 103 chars -> 26
        types.Content(role="user", parts=[image]),
    ]
    request = request_of(contents, instruction="c" * 80)  # 20
    assert estimate_request_tokens(request) == 10 + 3 + 5 + 3 + 26 + MEDIA_PART_TOKENS + 20
    assert estimate_content_tokens(contents[2]) == 29


def test_tool_declarations_count_towards_the_request() -> None:
    declaration = types.FunctionDeclaration(
        name="web_search",
        description="Search the web for a query and return page text.",
        parameters_json_schema={"type": "object", "properties": {"query": {"type": "string"}}},
    )
    request = request_of([user("hi")])
    bare = estimate_request_tokens(request)
    request.config.tools = [types.Tool(function_declarations=[declaration])]
    assert estimate_request_tokens(request) >= bare + 20


json_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='"\\'),
    max_size=30,
)
json_data = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | json_text,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(json_text, children, max_size=5)
    ),
    max_leaves=25,
)


@given(json_data)
def test_json_length_matches_compact_json(value) -> None:
    assert json_length(value) == len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


@st.composite
def sessions(draw):
    contents = [user("start")]
    for i in range(draw(st.integers(0, 12))):
        name = draw(st.sampled_from(["web_search", "save_finding", "fetch_page"]))
        size = draw(st.integers(0, 1500))
        contents.append(call(name, f"c{i}", q=str(i)))
        contents.append(response(name, f"c{i}", {"result": big_text(size, str(i))} if size else {}))
        if draw(st.booleans()):
            contents.append(model(f"thinking {i}"))
    return contents


@settings(max_examples=60, deadline=None)
@given(
    sessions(),
    st.integers(0, 6),
    st.sampled_from([None, 2000, 6000]),
    st.sampled_from([0, 200, 800]),
)
def test_pruning_properties(contents, keep_recent, threshold, min_tokens) -> None:
    snapshot = dump(contents)
    pruner = PruneStaleToolPayloads(
        {"web_search", "fetch_page"},
        keep_recent,
        threshold_tokens=threshold,
        min_payload_tokens=min_tokens,
    )
    request = request_of(contents, instruction="research")
    before = estimate_request_tokens(request)
    pruner(None, request)
    record = pruner.report.records()[-1]
    assert dump(contents) == snapshot  # input untouched
    assert record.tokens_before == before
    assert record.tokens_after == estimate_request_tokens(request) <= before
    assert [len(c.parts) for c in request.contents] == [len(c.parts) for c in contents]
    assert [(fr.id, fr.name) for fr in responses(request.contents)] == [
        (fr.id, fr.name) for fr in responses(contents)
    ]
    again = request_of(request.contents, instruction="research")
    pruner(None, again)  # idempotent: pruning a pruned request changes nothing
    assert dump(again.contents) == dump(request.contents)


async def test_after_model_callback_records_usage_and_event_metadata() -> None:
    context = await make_context()
    pruner = PruneStaleToolPayloads({"web_search"})
    pruner(
        context,
        request_of(
            [
                user("x"),
                call("web_search", "1"),
                response("web_search", "1", {"r": big_text(900)}),
                *[model("m")] * 4,
            ]
        ),
    )
    partial = LlmResponse(partial=True, content=model("par"))
    pruner.after_model_callback(context, partial)
    assert partial.custom_metadata is None
    final = LlmResponse(
        content=model("done"),
        custom_metadata={"other": 1},
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=321, cached_content_token_count=100
        ),
    )
    assert pruner.after_model_callback(context, final) is None
    (record,) = pruner.report.records()
    assert (record.prompt_tokens, record.cached_tokens) == (321, 100)
    assert final.custom_metadata["other"] == 1
    stored = final.custom_metadata[METADATA_KEY]
    assert stored["tokens_after"] == record.tokens_after and stored["prompt_tokens"] == 321

    other = PruneStaleToolPayloads({"web_search"})  # a different pruner: not its record
    untouched = LlmResponse(content=model("x"))
    other.after_model_callback(context, untouched)
    assert untouched.custom_metadata is None

    event = Event(
        author="a",
        invocation_id="i",
        custom_metadata=final.custom_metadata,
        usage_metadata=final.usage_metadata,
    )
    rebuilt = PruningReport.from_events([Event(author="user", invocation_id="i"), event])
    assert [(r.tokens_before, r.tokens_after, r.prompt_tokens) for r in rebuilt.records()] == [
        (record.tokens_before, record.tokens_after, 321)
    ]


def test_report_is_bounded_and_filterable() -> None:
    report = PruningReport(max_records=3)
    pruner = PruneStaleToolPayloads({"web_search"}, report=report)
    for _ in range(5):
        pruner(None, request_of([user("x")]))
    assert [r.call for r in report.records()] == [3, 4, 5]
    assert report.records(session_id="nope") == []
    assert len(report) == 3
    report.clear()
    assert len(report) == 0
