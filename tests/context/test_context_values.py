"""Exact-value extraction, salient sentences and the sensitive-data guarantee."""

from __future__ import annotations

import pytest
from google.adk.models.llm_request import LlmRequest
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from adk_memory_kit import ContextBudget, FactPreservingSummarizer, InvalidInputError
from adk_memory_kit.context import find_exact_values, salient_sentences
from adk_memory_kit.sensitive import detect_sensitive


def test_each_kind_is_found_verbatim():
    text = (
        "Ref QX7T2L, see https://example.com/r/report-77. Pay EUR 1,200 or $99.50 by 2026-03-12 "
        "at 9:30 am; 3 nights for 4 guests; mail ada@example.org the file plan_v2.pdf; "
        "meet Ada Lovelace at Hotel Lumen."
    )
    found = {(v.kind, v.text) for v in find_exact_values(text)}
    for expected in [
        ("id", "QX7T2L"),
        ("url", "https://example.com/r/report-77"),
        ("money", "EUR 1,200"),
        ("money", "$99.50"),
        ("date", "2026-03-12"),
        ("date", "9:30 am"),
        ("quantity", "3 nights"),
        ("quantity", "4 guests"),
        ("email", "ada@example.org"),
        ("file", "plan_v2.pdf"),
        ("name", "Ada Lovelace"),
        ("name", "Hotel Lumen"),
    ]:
        assert expected in found


def test_flagged_spans_are_never_values_or_sentences():
    text = "Card 4111 1111 1111 1111 ok. DB_PASSWORD=Sup3rS3cretValue9 now. Booked QX7T2L."
    values = [v.text for v in find_exact_values(text)]
    sentences = [s for _, s in salient_sentences(text)]
    assert "QX7T2L" in values
    assert not any("4111" in v or "Sup3r" in v for v in values)
    assert not any("4111" in s or "Sup3r" in s for s in sentences)


@settings(max_examples=60, deadline=None)
@given(
    prefix=st.text(max_size=60),
    card=st.sampled_from(
        ["4111 1111 1111 1111", "5500 0000 0000 0004", "GB82 WEST 1234 5698 7654 32"]
    ),
    suffix=st.text(max_size=60),
)
async def test_summaries_never_contain_flagged_text(prefix, card, suffix):
    text = f"{prefix} my card is {card}. {suffix}"
    summary = await FactPreservingSummarizer().summarize_contents(
        [("user", types.Content(role="user", parts=[types.Part(text=text)]))]
    )
    body = summary.parts[0].text
    assert not detect_sensitive(body)
    assert card not in body


async def test_summary_is_bounded_by_its_caps():
    summarizer = FactPreservingSummarizer(
        max_recent_tokens=60, max_older_tokens=30, max_values=5, max_constraints=2
    )
    lines = [f"We decided to keep order ORD-{i:04d} and must pay $1{i}.00." for i in range(200)]
    content = await summarizer.summarize_contents(
        [("user", types.Content(role="user", parts=[types.Part(text=" ".join(lines))]))]
    )
    text = content.parts[0].text
    # every line states a constraint ("must pay"), kept verbatim: 2 sentences of ~15 tokens
    assert len(text) // 4 <= 60 + 30 + 5 * 10 + 2 * 15 + 20
    assert "ORD-0199" in text and "ORD-0000" not in text  # the newest values win


async def test_recall_beyond_its_cap_is_trimmed_first():
    budget = ContextBudget(max_tokens=250, recall_max_tokens=60, summarizer=None)
    recall = "\n".join(
        ["<RECALLED_MEMORY>", "Memories:", *[f"memory {i}: " + "x" * 80 for i in range(8)]]
        + ["</RECALLED_MEMORY>"]
    )
    request = LlmRequest(
        contents=[
            types.Content(role="user", parts=[types.Part(text="hello " * 30)]),
            types.Content(role="model", parts=[types.Part(text="hi " * 30)]),
            types.Content(role="user", parts=[types.Part(text=recall)]),
            types.Content(role="user", parts=[types.Part(text="question?")]),
        ]
    )
    record, _ = await budget.apply(request)
    assert record.before["recall"] > 60 >= record.after["recall"] > 0
    assert record.after["recent"] == record.before["recent"]  # history untouched
    assert request.contents[-1].parts[0].text == "question?"


def test_bad_summarizer_arguments():
    with pytest.raises(InvalidInputError, match="max_values"):
        FactPreservingSummarizer(max_values=-1)
    with pytest.raises(InvalidInputError, match="model"):
        FactPreservingSummarizer(model="")
