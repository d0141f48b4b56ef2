"""Recall through shared entities: a fourth ranked list, of the rows linked to the question.

Issue 48. A multi-hop question needs memories that share an entity with the question or with
its best answers ("What race is Mette training for?": "Mette, my charge nurse, ..." and, in
another session, "My charge nurse is training for the Copenhagen half"). After the fused
search, the entity list ranks the user's current rows naming

* the question's entities (text/entities.py), resolved against the user's entity table
  (memory/entities.py): a name's other forms ("Mel" -> "Melanie", "Dahl" -> "Poul Dahl") and
  the relation it stands in apposition to ("Mette" -> Rannvá's nurse), and back;
* the entities of the top ``entity_seeds`` fused rows, at half weight;

each entity weighted by its rarity among the user's rows (``log(rows / rows naming it)``);
an entity named by more than ``entity_max_share`` of the user's rows (a speaker, the user's
own city) links nothing. The list is fused into the ranking by reciprocal rank at
``entity_weight`` (the one RRF of memory/fusion.py: :func:`~.fusion.add_ranked_list`);
rows it brings that the first pass did not return are fetched by primary key.

Guarantees: two indexed reads of the entity table and one GIN read of the user's rows
(``entity_rows`` at most), on the search's connection; only the user's own rows, in the
searched scopes, current and recallable (the first pass's filters on types apply; with a
time-travel or tag filter, or superseded rows asked for, the list is not read).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.memory import entities as entity_table
from adk_memory_kit.memory.config import SearchOptions
from adk_memory_kit.memory.fusion import add_ranked_list

#: Weight of a key that a first-pass result names, relative to one the question names.
SEED_KEY_WEIGHT = 0.5

Row = Mapping[str, Any]
Fetch = Callable[[list[str]], Awaitable[list[Row]]]


def _alias_parts(key: str) -> tuple[str, str]:
    """``a:mette=r:rannvá:nurse`` -> (``n:mette``, ``r:rannvá:nurse``)."""
    name, _, relation = key[2:].partition("=")
    return f"n:{name}", relation


async def _key_weights(
    conn: AsyncConnection,
    rows: Sequence[Row],
    *,
    app: str,
    user: str,
    scopes: Sequence[str],
    asked: Sequence[str],
    user_rows: int,
    options: SearchOptions,
) -> dict[str, float]:
    """Each linking key with its weight (rarity, times half for a result's keys)."""
    found = await entity_table.resolve(conn, app, user, scopes, asked) if asked else {}
    source: dict[str, float] = {}
    for key in found:
        if key.startswith("a:"):
            for part in _alias_parts(key):
                source[part] = 1.0
        else:
            source[key] = 1.0
    for row in rows[: options.entity_seeds]:
        for key in row.get("entities") or ():
            if not key.startswith("a:"):
                source.setdefault(key, SEED_KEY_WEIGHT)
    counts = {k: v for k, v in found.items() if k in source}
    missing = [k for k in source if k not in counts]
    counts.update(await entity_table.counts(conn, app, user, scopes, missing))
    cap = max(2.0, options.entity_max_share * user_rows)
    weights: dict[str, float] = {}
    for key, weight in source.items():
        n = counts.get(key, 0)
        if 0 < n <= cap:
            weights[key] = weight * math.log(max(user_rows, n + 1) / n)
    return weights


async def expand(
    conn: AsyncConnection,
    rows: list[Row],
    *,
    app: str,
    user: str,
    scopes: Sequence[str],
    types: Sequence[str] | None,
    asked: Sequence[str],
    user_rows: int,
    options: SearchOptions,
    fetch: Fetch,
) -> list[Row]:
    """``rows`` (fused, best first, each with ``score`` and ``entities``) with the entity
    list fused in, best first; unchanged when no rare entity links anything."""
    if options.entity_weight <= 0 or user_rows <= 0 or not (rows or asked):
        return rows
    weights = await _key_weights(
        conn,
        rows,
        app=app,
        user=user,
        scopes=scopes,
        asked=asked,
        user_rows=user_rows,
        options=options,
    )
    if not weights:
        return rows
    linked = await entity_table.linked_rows(
        conn, app, user, scopes, list(weights), types=types, limit=options.entity_rows
    )
    scored = {
        row_id: sum(weights.get(k, 0.0) for k in keys)
        for row_id, keys in linked
        if any(k in weights for k in keys)
    }
    if not scored:
        return rows
    ranked = sorted(scored, key=lambda row_id: (-scored[row_id], row_id))
    have = {str(r["id"]) for r in rows}
    extra = await fetch([i for i in ranked if i not in have])
    return add_ranked_list(
        [*rows, *extra], ranked, weight=options.entity_weight, rrf_k=options.rrf_k
    )
