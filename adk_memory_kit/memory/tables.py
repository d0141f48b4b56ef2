"""The memory tables' names and their hash-partition step (shared by the schema and the
term statistics' own steps)."""

from __future__ import annotations

from adk_memory_kit.db.migrations import Step

TABLE = "adk_memory_items"
# One row per ingested session: the newest event time of the latest snapshot written, so an
# older snapshot of the session that commits after a newer one changes nothing.
SNAPSHOTS = "adk_memory_session_snapshots"


def _is_partitioned(table: str) -> str:
    return f"(SELECT relkind::text FROM pg_class WHERE oid = to_regclass('{table}')) = 'p'"


def no_trigger(name: str) -> str:
    """A step's condition: the memory table has no trigger named ``name`` yet."""
    return (
        f"NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '{name}'"
        f" AND tgrelid = to_regclass('{TABLE}'))"
    )


def create_partitions_step(table: str, partitions: int | None) -> Step:
    """One step creating ``table``'s hash partitions ``<table>_p0..`` (one ``DO`` block).

    It runs only when the table is partitioned, so the step list keeps the same length
    whether or not ``partitions`` is given (a database records only a step count).
    """
    if not partitions:
        return Step("SELECT 1", only_if="false")
    return Step(
        f"""DO $$ BEGIN
    FOR i IN 0..{partitions - 1} LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF {table}'
            ' FOR VALUES WITH (MODULUS {partitions}, REMAINDER %s)', '{table}_p' || i, i);
    END LOOP;
END $$""",
        only_if=_is_partitioned(table),
    )
