"""Validated configuration (SearchOptions, IndexingOptions) and query-term processing."""

from __future__ import annotations

import pytest

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory import IndexingOptions, SearchOptions
from adk_memory_kit.memory.query import query_terms, websearch_or_query
from adk_memory_kit.memory.search import text_params


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("rrf_k", -1),
        ("limit", 0),
        ("candidates", 0),
        ("vector_weight", -0.5),
        ("text_weight", float("nan")),
        ("bm25_b", 1.5),
        ("author_weight", float("inf")),
    ],
)
def test_search_options_refuse_bad_values_at_construction(field, value):
    with pytest.raises(InvalidInputError, match=rf"SearchOptions\.{field}"):
        SearchOptions(**{field: value})


def test_rrf_k_minus_one_never_reaches_sql():
    with pytest.raises(InvalidInputError, match=r"rrf_k: Input should be greater than or equal"):
        SearchOptions(rrf_k=-1)


def test_search_options_are_frozen_and_refuse_unknown_fields():
    options = SearchOptions(limit=4)
    with pytest.raises(Exception, match="frozen"):
        options.limit = 5  # type: ignore[misc]
    with pytest.raises(InvalidInputError, match="rrfk"):
        SearchOptions(rrfk=3)


def test_defaults_feed_the_search_parameters_unchanged():
    params = text_params(["lisbon"], SearchOptions())
    assert (params["rrf_k"], params["wv"], params["wt"], params["we"]) == (20, 1.0, 1.5, 0.3)
    assert (params["k1"], params["b"], params["ctxw"], params["wa"]) == (1.2, 0.3, 0.5, 0.02)


@pytest.mark.parametrize(
    ("field", "value"),
    [("context_turns", -1), ("context_chars", -3), ("max_index_chars", 0), ("redactor", 5)],
)
def test_indexing_options_refuse_bad_values(field, value):
    with pytest.raises(InvalidInputError, match=rf"IndexingOptions\.{field}"):
        IndexingOptions(**{field: value})


def test_indexing_options_keep_a_custom_redactor_and_none():
    assert IndexingOptions(redactor=None).redactor is None
    options = IndexingOptions(redactor=str.upper, context_turns=0)
    assert options.redactor("abc") == "ABC" and options.context_turns == 0


def test_an_error_message_never_shows_text_values():
    with pytest.raises(InvalidInputError) as caught:
        IndexingOptions(context_turns="my secret diary")
    assert "secret" not in str(caught.value)


def test_a_leading_minus_is_searched_for_not_read_as_negation():
    """``-lisbon`` in a query means the word, never websearch's NOT operator."""
    terms = query_terms("-lisbon trip --A-4521-")
    assert terms == ["lisbon", "trip", "a-4521"]
    assert websearch_or_query(terms) == "lisbon OR trip OR a-4521"
