"""Cache-friendly threshold mode: prune in one step at a crossing, keep the prefix stable after."""

from __future__ import annotations

from types import SimpleNamespace

from google.adk.agents.run_config import RunConfig

from adk_memory_kit._adk_compat import insert_transient_user_content, label_dynamic_instruction
from adk_memory_kit.pruning import PruneStaleToolPayloads, estimate_request_tokens
from tests.support.pruning import (
    big_text,
    call,
    dump,
    is_tombstone,
    model,
    request_of,
    response,
    responses,
    user,
)


def is_text(content) -> bool:
    return bool(content.parts) and content.parts[0].text is not None


def session(turns: int) -> list:
    """A research session: per turn a user message, a search, a saved finding, an answer."""
    contents = []
    for t in range(turns):
        contents += [
            user(f"turn {t}"),
            call("web_search", f"s{t}", query=f"q{t}"),
            response("web_search", f"s{t}", {"result": big_text(1000, f"t{t}")}),
            call("save_finding", f"f{t}", summary=f"finding {t}"),
            response("save_finding", f"f{t}", {"status": "saved"}),
            model(f"answer {t}"),
        ]
    return contents


def request_points(contents: list) -> list[int]:
    """Prefix lengths at which the model was asked (just before each model content)."""
    return [i for i in range(1, len(contents)) if contents[i].role == "model"]


def replay(pruner: PruneStaleToolPayloads, contents: list) -> list[list]:
    outputs = []
    for end in request_points(contents):
        request = request_of(contents[:end])
        pruner(None, request)
        outputs.append(request.contents)
    return outputs


def rewrites(outputs: list[list]) -> list[int]:
    """Indexes of requests whose previous request is not a byte-identical prefix."""
    return [
        i
        for i in range(1, len(outputs))
        if dump(outputs[i][: len(outputs[i - 1])]) != dump(outputs[i - 1])
    ]


def test_nothing_is_pruned_below_the_threshold() -> None:
    contents = session(3)[:-1]
    request = request_of(contents)
    assert estimate_request_tokens(request) < 5000
    pruner = PruneStaleToolPayloads({"web_search"}, threshold_tokens=5000)
    pruner(None, request)
    assert dump(request.contents) == dump(contents)
    assert pruner.report.records()[0].threshold_crossed is False


def test_crossing_prunes_everything_outside_the_window_in_one_step() -> None:
    pruner = PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)
    contents = session(8)
    outputs = replay(pruner, contents)
    records = pruner.report.records()
    crossings = [i for i, r in enumerate(records) if r.threshold_crossed]
    assert crossings, "the session must cross the threshold"
    first = crossings[0]
    assert all(r.pruned_parts == 0 for r in records[:first])
    assert records[first].tokens_before > 3500
    out = outputs[first]
    outside = out[: len(out) - 4]
    searches = [fr for fr in responses(outside) if fr.name == "web_search"]
    assert len(searches) >= 2 and all(is_tombstone(fr) for fr in searches)
    assert not any(is_tombstone(fr) for fr in responses(out[len(out) - 4 :]))
    assert all(r.tokens_after <= 3500 for r in records)


def test_prefix_is_stable_between_crossings() -> None:
    pruner = PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)
    outputs = replay(pruner, session(12))
    crossed = [i for i, r in enumerate(pruner.report.records()) if r.threshold_crossed]
    assert len(crossed) >= 2
    assert rewrites(outputs) == crossed  # history changes only at a crossing
    pruned_counts = [r.pruned_parts for r in pruner.report.records()]
    assert pruned_counts == sorted(pruned_counts)


def test_eager_mode_rewrites_more_often_than_threshold_mode() -> None:
    contents = session(12)
    eager = rewrites(replay(PruneStaleToolPayloads({"web_search"}), contents))
    threshold = rewrites(
        replay(PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500), contents)
    )
    assert len(threshold) < len(eager)


def test_threshold_decision_depends_only_on_the_request() -> None:
    """A restarted process (fresh pruner) reproduces the same pruned prefix."""
    contents = session(10)
    seasoned = PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)
    last = replay(seasoned, contents)[-1]
    fresh = request_of(contents[: request_points(contents)[-1]])
    PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)(None, fresh)
    assert dump(fresh.contents) == dump(last)


def test_eager_mode_is_stable_except_at_the_window_edge() -> None:
    pruner = PruneStaleToolPayloads({"web_search"}, keep_recent=4)
    contents = session(6)
    outputs = replay(pruner, contents)
    for i in rewrites(outputs):
        previous, current = outputs[i - 1], outputs[i]
        first_diff = next(
            k for k in range(len(previous)) if dump([previous[k]]) != dump([current[k]])
        )
        assert first_diff >= len(previous) - 4  # only the old window can change


def pruned_ids(contents: list) -> set[str]:
    return {fr.id for fr in responses(contents) if is_tombstone(fr)}


def growth(n: int) -> int:
    """Characters the instruction gains before call ``n``: 100 to 200, deterministic."""
    return 100 + (n * 137) % 101


def without_recall(contents: list) -> list:
    return [c for c in contents if not (c.parts and (c.parts[0].text or "").startswith("recall"))]


def check_monotone(pruner: PruneStaleToolPayloads, outputs: list[list]) -> None:
    """No payload returns to raw, and history changes exactly at the recorded crossings."""
    for previous, current in zip(outputs, outputs[1:], strict=False):
        assert pruned_ids(previous) <= pruned_ids(current)
    crossed = [i for i, r in enumerate(pruner.report.records()) if r.threshold_crossed]
    assert len(crossed) >= 3
    assert rewrites(outputs) == crossed


def test_growing_instruction_never_moves_the_boundary_back() -> None:
    """A system instruction that grows between calls (e.g. ``{wm_view?}``) changes nothing."""
    contents = session(16)
    baseline = replay(PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500), contents)
    pruner = PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)
    outputs, size = [], 0
    for n, end in enumerate(request_points(contents)):
        size += growth(n)
        request = request_of(contents[:end], instruction="i" * size)
        pruner(None, request)
        outputs.append(request.contents)
    assert pruner.report.records()[-1].tokens_before > size // 4  # the overhead is counted
    check_monotone(pruner, outputs)
    assert [pruned_ids(o) for o in outputs] == [pruned_ids(o) for o in baseline]


def test_transient_user_content_does_not_move_the_boundary() -> None:
    """A recall block inserted into one request only (as ADK's preload does) is left out."""
    contents = session(16)
    baseline = replay(PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500), contents)
    pruner = PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)
    outputs = []
    for n, end in enumerate(request_points(contents)):
        request = request_of(contents[:end])
        block = user("recall: " + big_text(300 + (n * 211) % 700, f"m{n}"))
        insert_transient_user_content(request, [block])  # ADK's own placement
        pruner(None, request)
        assert any(c is block for c in request.contents)
        outputs.append(without_recall(request.contents))
    check_monotone(pruner, outputs)
    assert [dump(o) for o in outputs] == [dump(o) for o in baseline]


def test_labelled_dynamic_instruction_content_is_not_history() -> None:
    """ADK sends the dynamic instruction as a user content when static_instruction is set."""
    contents = session(16)
    baseline = replay(PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500), contents)
    pruner = PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)
    outputs, size = [], 0
    for n, end in enumerate(request_points(contents)):
        size += growth(n) * 2
        dynamic = user(label_dynamic_instruction("view: " + "w" * size))
        # non-text static instruction: ADK keeps [static, dynamic] as a prefix at index 0
        request = request_of(
            [user("Referenced inline data: inline_data_0"), dynamic, *contents[:end]]
        )
        pruner(None, request)
        assert request.contents[1] is dynamic
        outputs.append(request.contents[2:])
    check_monotone(pruner, outputs)
    assert [dump(o) for o in outputs] == [dump(o) for o in baseline]


def test_model_input_context_is_not_history() -> None:
    """``RunConfig.model_input_context`` sits before the invocation's user message."""
    contents = session(16)
    baseline = replay(PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500), contents)
    pruner = PruneStaleToolPayloads({"web_search"}, threshold_tokens=3500)
    outputs = []
    for n, end in enumerate(request_points(contents)):
        turn_start = max(
            i for i in range(end) if contents[i].role == "user" and is_text(contents[i])
        )
        extra = [user("recall context " + big_text(400 + (n * 173) % 900, f"c{n}"))]
        request = request_of([*contents[:turn_start], *extra, *contents[turn_start:end]])
        context = SimpleNamespace(run_config=RunConfig(model_input_context=extra))
        pruner(context, request)  # ADK inserts a deep copy; the callback compares by value
        outputs.append(without_recall(request.contents))
    check_monotone(pruner, outputs)
    assert [dump(o) for o in outputs] == [dump(o) for o in baseline]
