"""The entity table: which entities each user's memories name, and how many rows name each.

Issue 48. Every memory row carries the entity keys of its stored (already redacted) text in
its ``entities`` column (text/entities.py extracts them at write time, memory/items_sql.py
writes them). ``adk_memory_entities`` holds, per app, user, scope and entity key, the number
of rows naming it (``rows``), so a search can weigh an entity by how rare it is and resolve
a name ("Mel" -> "melanie", "Mette" -> "my charge nurse") without reading the user's rows.

Guarantees: statement-level triggers on the memory table keep the counts in the same
transaction as every INSERT, UPDATE (only rows whose entities or scope changed) and DELETE,
whichever code path writes: a forget, an expiry purge or ``delete_user_memories`` removes the
entities with the last row naming them. A rolled-back write leaves them unchanged. Every
statement here filters by ``app_name`` and ``user_id`` (the table is a kit table under
row-level security, db/rls.py). Rows written before this table existed carry no entities
until they are written again (docs/locomo.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from adk_memory_kit.db.catalog import home_comment_step
from adk_memory_kit.db.migrations import Step
from adk_memory_kit.memory.tables import TABLE, create_partitions_step, no_trigger

ENTITIES = "adk_memory_entities"
#: The GIN index a search's entity list reads (rows naming any of a set of keys).
ROWS_INDEX = f"{TABLE}_entities_idx"


def _apply(rows: str) -> str:
    """The statements applying the row deltas in ``rows`` (app, user, scope, entities,
    sign); entities whose count fell to zero are deleted by primary key."""
    # scale-lint: trigger body; joined on the statement's rows (app_name, user_id, entity)
    return f"""
        INSERT INTO {ENTITIES} AS s (app_name, user_id, scope, entity, rows)
        SELECT d.app_name, d.user_id, d.scope, e.entity, sum(d.sign)
        FROM {rows} d CROSS JOIN LATERAL unnest(d.entities) AS e(entity)
        GROUP BY 1, 2, 3, 4 HAVING sum(d.sign) <> 0 ORDER BY 1, 2, 3, 4
        ON CONFLICT (app_name, user_id, scope, entity) DO UPDATE SET rows = s.rows + EXCLUDED.rows;
        DELETE FROM {ENTITIES} s
        USING (SELECT DISTINCT d.app_name, d.user_id, d.scope, e.entity
               FROM {rows} d CROSS JOIN LATERAL unnest(d.entities) AS e(entity)
               WHERE d.sign < 0) u
        WHERE s.app_name = u.app_name AND s.user_id = u.user_id AND s.scope = u.scope
            AND s.entity = u.entity AND s.rows <= 0;"""


_INSERTED = "(SELECT app_name, user_id, scope, entities, 1 AS sign FROM new_rows)"
_DELETED = "(SELECT app_name, user_id, scope, entities, -1 AS sign FROM old_rows)"
_CHANGED = "n.entities IS DISTINCT FROM o.entities OR n.scope IS DISTINCT FROM o.scope"
_UPDATED = f"""(
            SELECT n.app_name, n.user_id, n.scope, n.entities, 1 AS sign
            FROM new_rows n JOIN old_rows o USING (app_name, user_id, id) WHERE {_CHANGED}
            UNION ALL
            SELECT o.app_name, o.user_id, o.scope, o.entities, -1 AS sign
            FROM old_rows o JOIN new_rows n USING (app_name, user_id, id) WHERE {_CHANGED})"""

_FUNCTION = f"""
CREATE OR REPLACE FUNCTION adk_memory_entities_apply() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {_apply(_INSERTED)}
    ELSIF TG_OP = 'DELETE' THEN
        {_apply(_DELETED)}
    ELSIF EXISTS {_UPDATED} THEN
        {_apply(_UPDATED)}
    END IF;
    RETURN NULL;
END
$fn$"""


def steps(partitions: int | None) -> list[Step]:
    """Migration steps (one statement each), appended after the memory table's own: the
    ``entities`` column (a constant default: no table rewrite), its GIN index, the entity
    table and the triggers keeping it. The same number of steps whatever ``partitions``."""
    suffix = " PARTITION BY HASH (user_id)" if partitions else ""
    trigger = (
        "CREATE TRIGGER {name} AFTER {op} ON " + TABLE + " REFERENCING {refs}"
        " FOR EACH STATEMENT EXECUTE FUNCTION adk_memory_entities_apply()"
    )
    return [
        Step(
            f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS entities text[] NOT NULL DEFAULT '{{}}'"
        ),
        Step(
            f"CREATE INDEX IF NOT EXISTS {ROWS_INDEX} ON {TABLE} USING gin (entities)"
            " WHERE cardinality(entities) > 0"
        ),
        Step(
            f"CREATE TABLE IF NOT EXISTS {ENTITIES} (app_name text NOT NULL,"
            ' user_id text NOT NULL, scope text NOT NULL, entity text COLLATE "C" NOT NULL,'
            " rows bigint NOT NULL, PRIMARY KEY (app_name, user_id, scope, entity))" + suffix
        ),
        create_partitions_step(ENTITIES, partitions),
        home_comment_step(ENTITIES, "memory_entities"),
        Step(_FUNCTION),
        Step(
            trigger.format(
                name="adk_memory_entities_ins", op="INSERT", refs="NEW TABLE AS new_rows"
            ),
            only_if=no_trigger("adk_memory_entities_ins"),
        ),
        Step(
            trigger.format(
                name="adk_memory_entities_upd",
                op="UPDATE",
                refs="OLD TABLE AS old_rows NEW TABLE AS new_rows",
            ),
            only_if=no_trigger("adk_memory_entities_upd"),
        ),
        Step(
            trigger.format(
                name="adk_memory_entities_del", op="DELETE", refs="OLD TABLE AS old_rows"
            ),
            only_if=no_trigger("adk_memory_entities_del"),
        ),
    ]


# The entity list in one statement (memory/entity_recall.py):
# * ``asked``: the user's entity keys a question's keys stand for, each found by primary key
#   (the entity column sorts in the "C" collation, so a prefix is a range of the key):
#   the keys asked (:func:`list_params` adds each name word's ``n:`` and ``w:`` keys), the
#   names an asked name of three letters or more opens ("n:mel" -> "n:melanie"), and the
#   alias keys of an asked name (``a:<name>=``) or relation (``b:<relation>=``), each
#   standing for both its name and its relation; at most 20 keys a prefix;
# * ``seeded``: the keys of the first pass's best rows, at ``:seed_weight``;
# * ``weighted``: each key (the larger weight when both) times its rarity among the user's
#   rows, ``ln(:n / rows naming it)``; a key named by more than ``:cap`` rows links nothing;
# * ``linked``: the user's current, recallable rows naming a weighted key (GIN, one key at a
#   time: an index scan a key, where a key set the planner cannot see reads the table), at
#   most ``:lim`` newest a key; each row's score is the sum of its keys' weights, the best
#   ``:lim`` kept.
# Returns the linked rows best first with their score and, for the rows the first pass did
# not return (``:have``) whose gain in the fusion, ``:weight / (:rrf_k + rank)``, beats
# ``:floor`` (the score a row needs to reach the cut), the columns a search returns
# (``dense_score`` from ``:qvec``).
_IN_SCOPE = "e.app_name = :app AND e.user_id = :user AND e.scope = ANY(:scopes)"
ENTITY_LIST_SQL = f"""
WITH asked AS MATERIALIZED (
    SELECT e.entity FROM {ENTITIES} e WHERE {_IN_SCOPE} AND e.entity = ANY(:keys)
    UNION
    SELECT f.entity FROM unnest(CAST(:prefixes AS text[])) AS p(prefix)
    CROSS JOIN LATERAL (
        SELECT e.entity FROM {ENTITIES} e
        WHERE {_IN_SCOPE} AND e.entity >= p.prefix AND e.entity < p.prefix || chr(1114111)
        LIMIT 20) f
), sources AS (
    SELECT k.entity, 1.0::float8 AS w FROM asked a CROSS JOIN LATERAL unnest(
        CASE WHEN a.entity LIKE 'a:%'
             THEN ARRAY['n:' || split_part(substr(a.entity, 3), '=', 1),
                        substr(a.entity, strpos(a.entity, '=') + 1)]
             WHEN a.entity LIKE 'b:%'
             THEN ARRAY[split_part(substr(a.entity, 3), '=', 1),
                        'n:' || substr(a.entity, strpos(a.entity, '=') + 1)]
             ELSE ARRAY[a.entity] END) AS k(entity)
    UNION ALL
    SELECT s.entity, CAST(:seed_weight AS float8) FROM unnest(CAST(:seed_keys AS text[])) s(entity)
), weighted AS MATERIALIZED (
    SELECT x.entity, max(x.w) * ln(greatest(CAST(:n AS float8), c.rows + 1) / c.rows) AS weight
    FROM sources x CROSS JOIN LATERAL (
        SELECT sum(e.rows)::float8 AS rows FROM {ENTITIES} e
        WHERE {_IN_SCOPE} AND e.entity = x.entity) c
    WHERE c.rows > 0 AND c.rows <= :cap
    GROUP BY x.entity, c.rows
), linked AS MATERIALIZED (
    SELECT DISTINCT x.id, x.entities, x.event_time FROM weighted w CROSS JOIN LATERAL (
        SELECT t.id, t.entities, t.event_time FROM {TABLE} t
        WHERE t.app_name = :app AND t.user_id = :user AND t.scope = ANY(:scopes)
          AND cardinality(t.entities) > 0 AND t.entities @> ARRAY[w.entity COLLATE "default"]
          AND t.valid_to IS NULL AND t.review_state IS NULL
          AND (t.expires_at IS NULL OR t.expires_at > now())
          AND (CAST(:types AS text[]) IS NULL OR t.memory_type = ANY(:types))
          AND (CAST(:types AS text[]) IS NOT NULL OR t.memory_type IS DISTINCT FROM 'procedure')
        ORDER BY t.event_time DESC
        LIMIT :lim) x
), scored AS (
    SELECT l.id, sum(w.weight) AS entity_score,
           row_number() OVER (ORDER BY sum(w.weight) DESC, l.id) AS entity_rank
    FROM linked l CROSS JOIN LATERAL unnest(l.entities) AS k(entity)
    JOIN weighted w ON w.entity = k.entity
    GROUP BY l.id
    ORDER BY 2 DESC, l.id
    LIMIT :lim
)
SELECT s.entity_score, s.id AS linked_id, f.*
FROM scored s
LEFT JOIN LATERAL (
    SELECT {{columns}}, 1 - (t.embedding <=> {{qvec}}) AS dense_score FROM {TABLE} t
    WHERE t.app_name = :app AND t.user_id = :user AND t.id = s.id
      AND NOT (t.id = ANY(CAST(:have AS uuid[])))
      AND :weight / (:rrf_k + s.entity_rank) > :floor
) f ON true
ORDER BY s.entity_score DESC, s.id
"""


def list_params(keys: Sequence[str]) -> dict[str, list[str]]:
    """The bound key parameters of :data:`ENTITY_LIST_SQL` for the asked ``keys``: the keys,
    each name word's ``n:`` and ``w:`` keys, and the prefixes (a name of three letters or
    more, and each asked name's and relation's alias keys)."""
    names = [k[2:] for k in keys if k.startswith("n:")]
    relations = [k for k in keys if k.startswith("r:")]
    exact = dict.fromkeys(keys)
    for name in names:
        for word in name.split():
            if len(word) > 2:
                exact.update(dict.fromkeys((f"n:{word}", f"w:{word}")))
    prefixes = [f"n:{n}" for n in names if len(n) >= 3]
    prefixes += [f"a:{n}=" for n in names] + [f"b:{r}=" for r in relations]
    return {"keys": list(exact), "prefixes": prefixes}
