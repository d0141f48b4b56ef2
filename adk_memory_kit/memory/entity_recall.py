"""Recall through shared entities: a fourth ranked list, of the rows linked to the question.

Issue 48. A multi-hop question needs memories that share an entity with the question or with
its best answers ("What race is Mette training for?": "Mette, my charge nurse, ..." and, in
another session, "My charge nurse is training for the Copenhagen half"). After the fused
search, the entity list ranks the user's current rows naming

* the question's entities (text/entities.py), resolved against the user's entity table
  (memory/entities.py): a name's other forms ("Mel" -> "Melanie", "Dahl" -> "Poul Dahl") and
  the relation it stands in apposition to ("Mette" -> the user's nurse), and back;
* the entities of the top ``entity_seeds`` fused rows, at :data:`SEED_KEY_WEIGHT`;

each entity weighted by its rarity among the user's rows (``ln(rows / rows naming it)``);
an entity named by more than ``entity_max_share`` of the user's rows (a speaker, the user's
own city), or by more than ``entity_max_rows``, links nothing. The list is fused into the
ranking by reciprocal rank at ``entity_weight`` (:func:`~.fusion.add_ranked_list`, the RRF
of memory/fusion.py). With ``entity_adds_only`` (default) only rows below the returned cut
gain: the list adds second hops and never re-orders what the first pass put on top (on the
first read of stop 64, re-ordering the top cost recall, docs/locomo.md).

Guarantees: one statement on the search's connection (index reads of the entity table, one
GIN read of at most ``entity_rows`` of the user's rows, the rows the first pass did not
return fetched in it); only the user's own rows in the searched scopes, current and
recallable, of the searched types. The caller skips it for a time-travel or tag filter, or
when superseded rows are asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.memory.config import SearchOptions
from adk_memory_kit.memory.entities import list_params
from adk_memory_kit.memory.fusion import add_ranked_list
from adk_memory_kit.memory.search_sql import ENTITY_LIST_SQL

#: Weight of a key that a first-pass result names, relative to one the question names
#: (tuned on LoCoMo's tuning split and the e1-e4 corpora, docs/locomo.md).
SEED_KEY_WEIGHT = 0.25

Row = Mapping[str, Any]


def _seed_keys(rows: Sequence[Row], seeds: int) -> list[str]:
    keys: dict[str, None] = {}
    for row in rows[:seeds]:
        for key in row.get("entities") or ():
            if not key.startswith(("a:", "b:")):  # alias keys link through their parts
                keys[key] = None
    return list(keys)


def _cut_score(rows: Sequence[Row], limit: int) -> float:
    """The score a new row must beat to enter the first ``limit`` (none while fewer)."""
    return float(rows[limit - 1]["score"]) if len(rows) >= limit else float("-inf")


async def expand(
    conn: AsyncConnection,
    rows: list[Row],
    *,
    params: Mapping[str, Any],
    scopes: Sequence[str],
    types: Sequence[str] | None,
    asked: Sequence[str],
    user_rows: int,
    options: SearchOptions,
    returned: int,
) -> list[Row]:
    """``rows`` (fused, best first, each with ``id``, ``score`` and ``entities``) with the
    entity list fused in, best first. ``params``: the search's bound parameters (``app``,
    ``user``, ``qvec``); ``returned``: how many rows the search returns. Unchanged when
    nothing rare links anything. A linked row the first pass did not return is fetched only
    when its gain could lift it over the row at the returned cut (rows above it only gain;
    the re-orderings that follow can lift a row a little more, which this bound ignores)."""
    seeds = _seed_keys(rows, options.entity_seeds)
    if options.entity_weight <= 0 or user_rows <= 0 or not (asked or seeds):
        return rows
    result = await conn.execute(
        ENTITY_LIST_SQL,
        {
            "app": params["app"],
            "user": params["user"],
            "qvec": params["qvec"],
            "scopes": list(scopes),
            "types": list(types) if types is not None else None,
            **list_params(asked),
            "seed_keys": seeds,
            "seed_weight": SEED_KEY_WEIGHT,
            "n": user_rows,
            "cap": min(max(2.0, options.entity_max_share * user_rows), options.entity_max_rows),
            "lim": options.entity_rows,
            "have": [str(r["id"]) for r in rows],
            "weight": options.entity_weight,
            "rrf_k": options.rrf_k,
            "floor": _cut_score(rows, returned),
        },
    )
    columns = list(result.keys())
    ranked: list[str] = []
    extra: list[Row] = []
    for values in result.all():
        found = dict(zip(columns, values, strict=True))
        ranked.append(str(found.pop("linked_id")))
        found.pop("entity_score")
        if found.get("id") is not None:  # not returned by the first pass
            extra.append({**found, "score": 0.0, "bm25_score": None, "exact_score": None})
    if options.entity_adds_only:
        kept = {str(r["id"]) for r in rows[:returned]}
        ranked = [i for i in ranked if i not in kept]
    if not ranked:
        return rows
    return add_ranked_list(
        [*rows, *extra], ranked, weight=options.entity_weight, rrf_k=options.rrf_k
    )
