"""The names of heavy users' partial HNSW indexes and their predicates (memory/ann.py).

An index is named from a hash of its app and user (no registry: a search asks
``to_regclass``), and its predicate names them as literals, so the planner matches it to a
search that names the same constants.
"""

from __future__ import annotations

import hashlib


def index_name(app: str, user: str) -> str:
    """The partial index name of one (app, user): stable, short, free of user text."""
    digest = hashlib.sha256(f"{app}\x1f{user}".encode()).hexdigest()[:20]
    return f"adk_mem_ann_{digest}"


def sql_literal(value: str) -> str:
    """``value`` as a standard SQL string literal (standard_conforming_strings is on), with
    ``:`` escaped for SQLAlchemy's ``text()`` so a colon never reads as a bind parameter."""
    return "'" + value.replace("'", "''").replace(":", "\\:") + "'"


def scope_literals(app: str, user: str) -> list[str]:
    """The user half of the partial-index predicate: ``app_name = '...'``, ``user_id = '...'``
    (the index also leaves pending rows out: :data:`INDEXED_ROWS`)."""
    return [f"app_name = {sql_literal(app)}", f"user_id = {sql_literal(user)}"]


#: The rest of the partial-index predicate: the rows not waiting to be folded in.
INDEXED_ROWS = "NOT ann_pending"

#: The SQL of :func:`index_name` on the row's ``app`` and ``user`` expressions, for the
#: upsert's ``ann_pending`` (memory/items_sql.py).
INDEX_NAME_SQL = (
    "'adk_mem_ann_' || left(encode(sha256(convert_to({app} || chr(31) || {user}, 'UTF8')),"
    " 'hex'), 20)"
)
