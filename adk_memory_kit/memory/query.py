"""Query processing for the full-text half of hybrid search."""

from __future__ import annotations

import re

# Function words that match nearly every turn; dropping them from the OR-query keeps the
# full-text list about the words that carry meaning. Identifiers are never dropped.
STOPWORDS = frozenset(
    """a about above after again all am an and any are as at be been before being below between
    both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over
    own same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while
    who whom why will with would you your yours yourself yourselves ever also like likely
    """.split()
)

_CHUNK = re.compile(r"[^\s\"'“”‘’()\[\]{}<>,;!?]+")


def query_terms(query: str) -> list[str]:
    """The query's meaningful chunks, lower-cased, de-duplicated, in order.

    A chunk keeps inner punctuation so ``A-4521`` or ``bob@example.com`` stay whole (the
    ``simple`` text-search parser turns them into exact phrases). Leading and trailing
    punctuation is stripped, so no term starts with ``-``: a query word such as ``-lisbon``
    is searched for, never read as ``websearch_to_tsquery``'s "not" operator.
    """
    terms: list[str] = []
    for raw in _CHUNK.findall(query.lower()):
        chunk = raw.strip(".:-_/\\|&!*")
        if not chunk or chunk in STOPWORDS or chunk in terms:
            continue
        if chunk.isalpha() and len(chunk) < 2:
            continue
        terms.append(chunk)
    return terms


def websearch_or_query(terms: list[str]) -> str:
    """A ``websearch_to_tsquery`` input that ORs ``terms`` (each term may be a phrase).

    ``terms`` come from :func:`query_terms`, which strips a leading ``-`` (negation).
    """
    return " OR ".join(terms)
