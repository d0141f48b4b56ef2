"""How a heavy user's full-text candidates are chosen, from the query lexemes' frequencies.

Pure planning: given this user's document frequency of each query lexeme (write-maintained,
memory/term_stats.py) and the candidate budget, :func:`candidate_queries` returns the tsquery
texts the bounded lexical statement (memory/search_sql.py) reads candidates with.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

# At most this many common lexemes (the rarest of them) form the coverage tiers: the tier
# "at least m of k" is an OR of C(k, m) conjunctions, each evaluated by the GIN index over the
# union of their posting lists, so k = 4 keeps a tier to 6 conjunctions (k = 6 gave the same
# overlap with the exact ranking and cost up to 60 ms a tier).
TIER_LEXEMES = 4


def _tsquery_literal(lexeme: str) -> str:
    return "'" + lexeme.replace("'", "''") + "'"


def _at_least(lexemes: list[str], m: int) -> str:
    """A tsquery text matching rows that hold at least ``m`` of ``lexemes``."""
    return " | ".join(
        "(" + " & ".join(_tsquery_literal(x) for x in combo) + ")"
        for combo in combinations(lexemes, m)
    )


@dataclass(frozen=True)
class CandidateQueries:
    """How a heavy user's lexical candidates are generated (tsquery texts).

    ``rare``: the rarest lexemes whose document frequencies add up to at most the budget, OR-ed:
    every row holding one is read (``None``: even the rarest lexeme is more frequent).
    ``tiers``: the other (common) lexemes by coverage, best first: rows holding all of the
    :data:`TIER_LEXEMES` rarest common lexemes, then at least one fewer, and so on down to
    one. Rows are read tier by tier until the common budget is spent (a row read in one tier
    comes again in the next, where the cap counts it again; the candidates hold it once), so
    a row matching more of the query is never dropped for one matching less: only within the
    last tier read does the table's order decide.
    """

    rare: str | None
    tiers: tuple[str, ...]


def candidate_queries(dfs: Mapping[str, int], budget: int) -> CandidateQueries:
    """Split the query's lexemes (with this user's document frequencies) into the rare set and
    the coverage tiers of the common ones. Lexemes holding a backslash are left to BM25."""
    usable = sorted((df, lexeme) for lexeme, df in dfs.items() if "\\" not in lexeme)
    rare: list[str] = []
    common: list[str] = []
    total = 0
    for df, lexeme in usable:
        if not common and total + df <= budget:
            rare.append(lexeme)
            total += df
        else:
            common.append(lexeme)
    top = common[:TIER_LEXEMES]
    tiers = tuple(_at_least(top, m) for m in range(len(top), 0, -1))
    return CandidateQueries(rare=" | ".join(_tsquery_literal(x) for x in rare) or None, tiers=tiers)


@dataclass(frozen=True)
class CoverageTerm:
    """One query lexeme of the cheap pre-ranking (:func:`coverage_terms`): a candidate holding
    it in the turn itself gains ``in_turn``, one holding it only in the neighbouring turns
    ``in_context``."""

    turn_query: str
    any_query: str
    in_turn: float
    in_context: float


def coverage_terms(
    dfs: Mapping[str, int], rows: int, k1: float, context_weight: float
) -> tuple[CoverageTerm, ...]:
    """The terms of the cheap pre-ranking of a heavy user's candidates: each query lexeme's
    BM25 weight for a row holding it once, at an average length (its IDF times the saturated
    term frequency, the turn counting 1 and a neighbouring turn ``context_weight``), with the
    tsquery texts that test for it. A candidate's coverage score is the sum over the lexemes
    it holds: BM25 without repeated occurrences and length normalisation, read with one or two
    tsvector lookups per lexeme instead of unnesting the row's lexemes."""
    n = max(rows, 1)

    def saturated(tf: float) -> float:
        return tf * (k1 + 1) / (tf + k1) if tf + k1 > 0 else 0.0

    terms = []
    for lexeme, df in sorted(dfs.items()):
        if "\\" in lexeme:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        literal = _tsquery_literal(lexeme)
        terms.append(
            CoverageTerm(
                turn_query=f"{literal}:A",
                any_query=literal,
                in_turn=idf * saturated(1.0),
                in_context=idf * saturated(context_weight),
            )
        )
    return tuple(terms)
