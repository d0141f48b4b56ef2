"""The memory floor's options, all in one place: :class:`MemoryConfig` (the service's one
configuration object) and the parts it holds, :class:`SearchOptions`,
:class:`IndexingOptions` and :class:`StorageOptions`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from google.adk.memory.memory_entry import MemoryEntry
from pydantic import ConfigDict, Field, InstanceOf, SkipValidation, field_validator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.core.session_policy import SessionSelector, WritePolicy, resolve_policy
from adk_memory_kit.memory.consolidation import Consolidator
from adk_memory_kit.sensitive import redact_for_store

MAX_LIMIT = 2**31 - 1
# The relevance floor's similarity for rows without a full-text match (SearchOptions): the 5th
# percentile of the evidence turns' similarity on the LoCoMo tuning split (docs/memory.md).
MIN_SIMILARITY = 0.33
# Read-time re-ordering weights (memory/rerank.py), tuned on the LoCoMo tuning split with the
# two-turn context window (docs/locomo.md, fourth round; 0.05 with the one-turn window).
SESSION_WEIGHT = 0.025
NEIGHBOUR_WEIGHT = 0.1
#: RRF weight of the entity list (issue 48): off by default. On the first reads of stop 64 it
#: moved R@10 by -0.022 to +0.017 (e5-e7), within noise, for +4-9 ms a search; opt in with
#: 0.5 (docs/locomo.md).
ENTITY_WEIGHT = 0.0

# verifier(entry) -> True to accept; False or a reason (str) to reject; may be async
Verifier = Callable[[MemoryEntry], "bool | str | Awaitable[bool | str]"]


class SearchOptions(KitConfig):
    """Ranking knobs; the defaults are tuned on LoCoMo (docs/locomo.md). Validated at
    construction: a negative weight or RRF constant is refused with ``InvalidInputError``.

    Heavy users (``heavy_user_rows`` rows or more) take the bounded path (:func:`heavy_sql`):
    ``lexical_budget`` caps the rows the full-text candidate stage reads, and
    ``ann_ef_search`` is HNSW's ``ef_search`` on the user's partial index (memory/ann.py).
    """

    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="Results returned by default.")
    candidates: int = Field(
        200, ge=1, le=MAX_LIMIT, description="Depth of each ranked list before fusion."
    )
    rrf_k: int = Field(
        20,
        ge=0,
        le=1_000_000,
        description="The RRF constant (lower trusts the top of each list more).",
    )
    vector_weight: float = Field(
        1.0, ge=0, allow_inf_nan=False, description="RRF weight of the vector list."
    )
    text_weight: float = Field(
        1.5, ge=0, allow_inf_nan=False, description="RRF weight of the BM25 list."
    )
    exact_weight: float = Field(
        0.3,
        ge=0,
        allow_inf_nan=False,
        description="RRF weight of the unstemmed exact-phrase list.",
    )
    bm25_k1: float = Field(1.2, ge=0, allow_inf_nan=False, description="BM25 term saturation.")
    bm25_b: float = Field(
        0.3, ge=0, le=1, allow_inf_nan=False, description="BM25 length normalisation."
    )
    context_weight: float = Field(
        0.5,
        ge=0,
        allow_inf_nan=False,
        description="How much a word found only in a neighbouring turn counts, relative to "
        "one in the turn itself.",
    )
    author_weight: float = Field(
        0.02,
        ge=0,
        allow_inf_nan=False,
        description="Added to the fused score of a turn whose author the query names "
        '("what did Caroline ...").',
    )
    heavy_user_rows: int = Field(
        3_000,
        ge=1,
        le=2**62,
        description="Users with at least this many rows take the bounded heavy path "
        "(write-maintained statistics, bounded candidate lists).",
    )
    lexical_budget: int = Field(
        1_000,
        ge=1,
        le=MAX_LIMIT,
        description="Heavy path: the most rows the full-text candidate stage reads.",
    )
    lexical_rescore: int = Field(
        400,
        ge=1,
        le=MAX_LIMIT,
        description="Heavy path: how many full-text candidates, pre-ranked by their coverage "
        "of the query's words weighted by IDF (memory/lexical.py), are scored by BM25 (at "
        "least ``candidates``).",
    )
    ann_ef_search: int = Field(
        400,
        ge=1,
        le=1_000,
        description="Heavy path: HNSW ef_search on the user's partial index (memory/ann.py).",
    )
    ann_auto_build: bool = Field(
        True,
        description="Build a heavy user's partial HNSW index in the background when a "
        "write leaves the user heavy without one (memory/ann.py IndexBuilder; a search never "
        "starts a build); False: only maintenance jobs build indexes (index_heavy_users, "
        "lifecycle.IndexUpkeepJob).",
    )
    session_weight: float = Field(
        SESSION_WEIGHT,
        ge=0,
        allow_inf_nan=False,
        description="Read-time session prior: a row gains this times the summed fused score "
        "of the other top rows of its session (memory/rerank.py; 0: off).",
    )
    neighbour_weight: float = Field(
        NEIGHBOUR_WEIGHT,
        ge=0,
        allow_inf_nan=False,
        description="Read-time neighbour propagation: a row gains this times the best fused "
        "score of its neighbouring turns among the top rows (memory/rerank.py; 0: off).",
    )
    rerank_depth: int = Field(
        50,
        ge=1,
        le=MAX_LIMIT,
        description="How many fused rows the read-time re-orderings consider.",
    )
    entity_weight: float = Field(
        ENTITY_WEIGHT,
        ge=0,
        allow_inf_nan=False,
        description="RRF weight of the entity list: the user's rows naming a rare entity the "
        "question or its best results name (memory/entity_recall.py; 0, the default: off; "
        "0.5 is the measured setting, docs/locomo.md).",
    )
    entity_adds_only: bool = Field(
        True,
        description="The entity list lifts only rows below the returned cut (it adds second "
        "hops); the first pass's top rows keep their scores and order. False: every linked "
        "row gains, the top re-ordered too.",
    )
    entity_seeds: int = Field(
        5,
        ge=0,
        le=MAX_LIMIT,
        description="How many of the best fused rows lend their entities to the entity list.",
    )
    entity_max_share: float = Field(
        0.05,
        gt=0,
        le=1,
        allow_inf_nan=False,
        description="An entity named by more than this share of the user's rows (and by "
        "more than two) links nothing: a speaker, the user's own city.",
    )
    entity_max_rows: int = Field(
        100,
        ge=1,
        le=MAX_LIMIT,
        description="An entity named by more rows than this links nothing, whatever the "
        "user's size (it names too much to lead to one memory; bounds the list's cost).",
    )
    entity_rows: int = Field(
        50,
        ge=1,
        le=MAX_LIMIT,
        description="The most rows the entity list reads.",
    )
    relevance_floor: bool = Field(
        True,
        description="Return only relevant rows: a full-text match of the query (the turn or "
        "its indexed context), or a cosine similarity of at least min_similarity. A query "
        "of stop words only returns nothing. False: every ranked row, as before.",
    )
    min_similarity: float = Field(
        MIN_SIMILARITY,
        ge=-1,
        le=1,
        allow_inf_nan=False,
        description="The relevance floor's cosine similarity for a row without a full-text "
        "match (calibrated on the LoCoMo tuning split, docs/locomo.md).",
    )


class IndexingOptions(KitConfig):
    """What text goes into the index for each event (validated at construction).

    ``context_turns`` preceding and ``context_turns_after`` following turns of the same session
    (two each by default) are full-text indexed with the turn at a low weight
    (``context_text``): a reply such as "Yes, last Tuesday" is only findable together with the
    question it answers, which may be two turns back, after a clarifying turn. The stored
    text stays the turn alone. ``embed_context`` also puts that context into the embedded text;
    off by default, since on LoCoMo the turn alone embeds better once the full text carries the
    context (see docs/locomo.md). Following turns are only known when they arrive in the same
    call (``add_session_to_memory`` re-indexes a session's earlier turns as it grows).
    """

    redactor: Callable[[str], str] | None = Field(
        redact_for_store,
        description="Runs on every text before it is stored or indexed, and on every string "
        "value of the stored custom_metadata (recursively); the default replaces card numbers, "
        "IBANs, credentials and government ids with [REDACTED:<kind>] (health terms are left "
        "to the routing layer). The store's own gate (sensitive.redact_for_store) still runs "
        "at the write whatever this is; None only leaves the embedded text as it is.",
    )
    index_function_calls: bool = Field(
        False, description="Also index function calls and responses as text."
    )
    include_author: bool = Field(
        True,
        description="Prefix the indexed and embedded text with the event's author (the "
        "full-text index leaves out ADK's generic 'user', which names no one).",
    )
    context_turns: int = Field(
        2,
        ge=0,
        le=100,
        description="Preceding turns indexed with a turn (low weight); two, since an answer "
        "may follow its question after a clarifying turn (docs/locomo.md).",
    )
    context_turns_after: int = Field(
        2, ge=0, le=100, description="Following turns indexed with a turn (low weight)."
    )
    context_chars: int = Field(
        300, ge=0, description="At most this many characters of each context turn."
    )
    embed_context: bool = Field(
        False, description="Also put the context turns into the embedded text."
    )
    max_index_chars: int = Field(
        20_000, ge=1, description="At most this many characters of a turn are indexed."
    )
    index_date: bool = Field(
        True,
        description="Index the event's date (e.g. '8 May 2023') with the turn at the context "
        "weight, so a question naming a month or year finds it; the stored text stays as it "
        "is, so routed memories get it too.",
    )
    embed_date: bool = Field(
        False, description="Also prefix the embedded text with the event's date."
    )
    index_left_out: bool = Field(
        True,
        description="Index the sentences the routed write policy leaves out of the stored "
        "text as filler or fact-less questions (adk_memory_kit.core.index_keys): in the "
        "turn's own full-text context, and as its neighbours' context (a turn left with only "
        "such sentences is context, never a row). Never stored or returned; sensitive and "
        "routed-away sentences are never among them.",
    )
    left_out_in_turn: bool = Field(
        True,
        description="Index the left-out sentences with the turn's own text (full weight, as "
        "the full transcript indexes them; what its neighbours' context holds too); False: "
        "in its low-weight context only. Index keys either way, never stored text.",
    )
    embed_left_out: bool = Field(
        False,
        description="Embed the turn's whole indexable text (stored and left-out sentences) "
        "instead of its stored text.",
    )


class StorageOptions(KitConfig):
    """How the memory tables are laid out (read when a new database is created)."""

    partitions: int | None = Field(
        None,
        ge=1,
        le=1024,
        strict=True,
        description="Hash-partition a new database's memory tables by user_id into this many "
        "partitions (None: plain tables). An existing plain table is refused; see "
        "docs/scale.md for the migration.",
    )


class MemoryConfig(KitConfig):
    """Everything that tunes the memory service; frozen and validated at construction.

    The parts read their own fields: the store (``storage``, ``search``, ``pool_size``,
    ``access_flush_delay``), the write pipeline (``indexing``, ``write_policy``,
    ``routed_options``, ``consolidator``, ``verifier``, ``min_importance``).
    """

    model_config = ConfigDict(**KitConfig.model_config, arbitrary_types_allowed=True)

    storage: StorageOptions = Field(
        default_factory=StorageOptions, description="Table layout of a new database."
    )
    search: SearchOptions = Field(
        default_factory=SearchOptions,
        description="Ranking options (result cap, candidate depth, fusion weights).",
    )
    indexing: IndexingOptions = Field(
        default_factory=IndexingOptions, description="What is embedded and indexed per event."
    )
    write_policy: WritePolicy = Field(
        None,  # type: ignore[assignment]  # resolved by the validator below
        description="What add_session_to_memory stores: ROUTED (default, or "
        "$ADK_MEMORY_KIT_WRITE_POLICY) or FULL_TRANSCRIPT; names are accepted too.",
    )
    routed_options: InstanceOf[SessionSelector] | None = Field(
        None,
        description="The ROUTED policy's selector with its tuning (a RoutedOptions); None: "
        "the assembly's default (adk_memory_kit.PgVectorMemoryService supplies one).",
    )
    consolidator: Annotated[Consolidator | None, SkipValidation] = Field(
        None,
        description="Compares each new fact with the user's nearby facts on write "
        "(RuleConsolidator, LlmConsolidator); None: written as given.",
    )
    query_decomposer: Annotated[Any, SkipValidation] = Field(
        None,
        description="Splits a multi-hop question into sub-questions with a model, each "
        "searched and fused with the question's own search (a QueryDecomposer; issue 48, "
        "off by default: None).",
    )
    verifier: Annotated[Verifier | None, SkipValidation] = Field(
        None,
        description="Quality gate on fact writes, (entry) -> True | False | reason, may be "
        "async; rejected entries are reported by add_memory and counted in metrics.",
    )
    min_importance: float | None = Field(
        None, ge=0.0, le=1.0, strict=True, description="Entries below this importance are rejected."
    )
    pool_size: int = Field(
        5, ge=1, le=1000, strict=True, description="Connections kept by the service's own engine."
    )
    access_flush_delay: float = Field(
        2.0, ge=0.0, le=3600.0, description="Seconds recall accesses wait before one UPDATE."
    )
    read_url: str | None = Field(
        None,
        description="A streaming replica's URL: searches read there (writes, deletes and the "
        "write path's own lookups stay on the primary); None: everything on the primary. "
        "See docs/scale.md for the staleness window.",
    )
    read_your_writes_s: float = Field(
        5.0,
        ge=0.0,
        le=3600.0,
        description="After this process writes or deletes a user's memories, that user's "
        "searches stay on the primary this many seconds (longer than the replica's lag), so "
        "a user never misses what they just said nor sees what they just deleted.",
    )

    @field_validator("write_policy", mode="before")
    @classmethod
    def _policy(cls, value: Any) -> WritePolicy:
        return resolve_policy(value)

    @field_validator("query_decomposer")
    @classmethod
    def _decomposer(cls, value: Any) -> Any:
        if value is not None and not callable(getattr(value, "parts", None)):
            raise ValueError("must have an async parts(question) method")
        return value

    @field_validator("consolidator")
    @classmethod
    def _consolidator(cls, value: Any) -> Any:
        if value is not None and not callable(getattr(value, "decide", None)):
            raise ValueError("must have an async decide(fact, neighbours) method")
        return value

    @field_validator("verifier")
    @classmethod
    def _verifier(cls, value: Any) -> Any:
        if value is not None and not callable(value):
            raise ValueError("must be a callable (entry) -> bool | reason")
        return value
