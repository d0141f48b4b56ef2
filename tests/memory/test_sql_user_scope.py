"""Every SQL statement on the memory tables and the episodic log names one user:
``user_id`` equality.

That keeps each statement a single-partition (and, on Citus, single-shard "router") query.
The test reads the package source: every string literal (f-strings rendered with the module's
string constants) that holds a SELECT/INSERT/UPDATE/DELETE on a memory table must, after each
reference to the table, carry ``user_id = <parameter or literal>`` (an INSERT: a ``user_id``
column). An optional filter (``:user IS NULL OR user_id = :user``) is not an equality: the
statement may run across users. A statement that is global by design is allow-listed by a
``# scale-lint: <reason>`` comment on or just above its string.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import adk_memory_kit

TABLES = (
    "adk_memory_items",
    "adk_memory_session_snapshots",
    "adk_memory_user_stats",
    "adk_memory_term_stats",
    "adk_episodic_log",
)
_REF = re.compile(r"\b(FROM|JOIN|INTO|UPDATE)\s+(" + "|".join(TABLES) + r")\b", re.I)
_USER_EQ = re.compile(r"\buser_id\s*=\s*(:\w|'|\$\d|EXCLUDED\.)", re.I)
_OPTIONAL_USER = re.compile(r"\bIS\s+NULL\s+OR\s+(\w+\.)?user_id\s*=", re.I)
_DML = re.compile(r"^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b", re.I)
_MARK = "scale-lint:"


def violations(sql: str) -> list[str]:
    """The statements of ``sql`` that reference a memory table without a user equality."""
    bad = []
    for statement in sql.split(";"):
        if not _DML.search(statement):
            continue
        refs = list(_REF.finditer(statement))
        for i, ref in enumerate(refs):
            end = refs[i + 1].start() if i + 1 < len(refs) else len(statement)
            segment = statement[ref.start() : end]
            if ref.group(1).upper() == "INTO":
                ok = re.search(r"\(\s*[^)]*\buser_id\b", segment) is not None
            else:
                ok = _USER_EQ.search(_OPTIONAL_USER.sub("", segment)) is not None
            if not ok:
                bad.append(" ".join(statement.split())[:160])
                break
    return bad


def _render(node: ast.AST, names: dict[str, object]) -> str | None:
    """The text of a string expression; unknown interpolations become ``?``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                inner = value.value
                known = names.get(inner.id) if isinstance(inner, ast.Name) else None
                parts.append(known if isinstance(known, str) else "?")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left, names), _render(node.right, names)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Name) and isinstance(names.get(node.id), str):
        return names[node.id]  # type: ignore[return-value]
    return None


def _source_statements():
    root = Path(adk_memory_kit.__file__).parent
    for path in sorted(root.rglob("*.py")):
        module = importlib.import_module(
            ".".join(
                ("adk_memory_kit", *path.relative_to(root).with_suffix("").parts)
            ).removesuffix(".__init__")
        )
        names = {k: v for k, v in vars(module).items() if isinstance(v, str)}
        source = path.read_text()
        lines = source.splitlines()
        tree = ast.parse(source)
        inner: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr | ast.BinOp):
                inner.update(id(n) for n in ast.walk(node) if n is not node)
        for node in ast.walk(tree):
            if id(node) in inner or not isinstance(node, ast.Constant | ast.JoinedStr | ast.BinOp):
                continue
            sql = _render(node, names)
            if not sql or not _REF.search(sql):
                continue
            around = lines[max(0, node.lineno - 3) : node.end_lineno]
            yield path.relative_to(root.parent), node.lineno, sql, any(_MARK in x for x in around)


def test_every_statement_on_memory_tables_names_one_user():
    found, bad = 0, []
    for path, line, sql, allowed in _source_statements():
        found += 1
        if not allowed:
            bad += [f"{path}:{line}: {v}" for v in violations(sql)]
    assert found >= 28  # the scan sees the service, search, statistics and index SQL
    assert not bad, "statements without a user_id equality:\n" + "\n".join(bad)


def test_the_check_catches_a_statement_without_the_user():
    assert violations("SELECT id FROM adk_memory_items WHERE app_name = :app")
    assert violations("DELETE FROM adk_memory_term_stats WHERE df <= 0")
    assert violations(
        "WITH a AS (SELECT id FROM adk_memory_items WHERE user_id = :user)"
        " SELECT * FROM a JOIN adk_memory_items t ON t.id = a.id"
    )
    assert violations("INSERT INTO adk_memory_user_stats (app_name, n) VALUES (:a, 1)")
    assert not violations(
        "SELECT id FROM adk_memory_items t WHERE t.app_name = :app AND t.user_id = :user"
    )
    assert not violations("INSERT INTO adk_memory_items (id, app_name, user_id) VALUES (1, 2, 3)")


def test_the_episodic_log_is_checked_and_its_cross_user_statements_are_marked():
    from adk_memory_kit.episodic import store

    assert store.TABLE in TABLES
    seen = [(path, sql, allowed) for path, _, sql, allowed in _source_statements()]
    episodic = [(sql, allowed) for path, sql, allowed in seen if store.TABLE in sql]
    # insert, max_seq, trace, first_failure, forget_user, count_for_user (scoped) and
    # users_of_session, purge_expired, cost_summary, export (operator-wide, marked)
    assert len(episodic) >= 10
    assert sum(allowed for _, allowed in episodic) == 4
    assert all(path.name == "store.py" for path, sql, _ in seen if store.TABLE in sql)


def test_an_optional_user_filter_is_not_an_equality():
    assert violations(
        "SELECT * FROM adk_episodic_log WHERE app_name = :app"
        " AND (CAST(:user_id AS text) IS NULL OR user_id = :user_id)"
    )
    assert not violations(
        "SELECT * FROM adk_episodic_log WHERE app_name = :app AND user_id = :user_id"
        " AND (CAST(:session_id AS text) IS NULL OR session_id = :session_id)"
    )
