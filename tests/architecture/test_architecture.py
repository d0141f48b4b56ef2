"""Dependencies between the kit's packages run one way (checked from the source with ``ast``).

A "package" is a top-level module or package of ``adk_memory_kit`` (``core``, ``memory``,
``routing``, ``errors`` ...). Every ``import`` counts: module level, inside functions (lazy)
and under ``TYPE_CHECKING``. See docs/architecture.md for the picture.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import adk_memory_kit

ROOT = Path(adk_memory_kit.__file__).resolve().parent

#: Each package may import only packages on a LOWER layer (and itself). A new package must be
#: placed here; moving one up or down is a design decision (update docs/architecture.md too).
LAYERS: dict[str, int] = {
    # 0: leaves
    "errors": 0,
    # 1: neutral contracts and the one door to private ADK names
    "core": 1,
    "_adk_compat": 1,
    # 2: infrastructure and stand-alone helpers
    "db": 2,
    "embedders": 2,
    "sensitive": 2,
    # 3: components that depend only on infrastructure
    "profile": 3,
    "pruning": 3,
    "working_memory": 3,
    # 4: components built on the profile, the context budget, the public test double
    "recall": 4,
    "routing": 4,
    "testing": 4,
    # 5: the write policy (the router's decisions, applied to every write into retrieval) and
    #    the model choice (Gemini with a key, else the scripted model)
    "write_policy": 5,
    "model_choice": 5,
    # 6: long-term memory (every session write passes the write policy); the context budget
    "memory": 6,
    "context": 6,
    # 7: orchestration over memory, sessions and routing
    "lifecycle": 7,
    "adk_services": 7,
    "scripted": 7,  # re-export of ``testing`` kept for one release
    "tools": 7,  # MemoryToolset: the model's own memory tools, over memory and routing
    "episodic": 4,  # the episodic log (store, plugin, costs): db, sensitive, pruning estimates
    # 8: applications and the facade
    "console": 8,
    "demo": 9,
    "cli": 9,
    "__init__": 10,
    "__main__": 10,
}


def _package_of(path: Path) -> str:
    rel = path.relative_to(ROOT)
    return rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 else rel.stem


def _module_parts(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imported_packages(path: Path, source: str | None = None) -> list[tuple[str, int]]:
    """``(package, line)`` for every kit package ``path`` imports, anywhere in the file."""
    found = []
    here = _module_parts(path)
    is_pkg = path.name == "__init__.py"
    if source is None:
        source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source, str(path))):
        targets: list[list[str]] = []
        if isinstance(node, ast.Import):
            targets = [a.name.split(".") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_pkg else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = base + (node.module.split(".") if node.module else [])
                targets = [["adk_memory_kit", *mod]] if mod else []
                if not mod:  # from . import x (at the top level)
                    targets = [["adk_memory_kit", a.name] for a in node.names]
            elif node.module:
                parts = node.module.split(".")
                if parts == ["adk_memory_kit"]:
                    targets = [["adk_memory_kit", a.name] for a in node.names]
                else:
                    targets = [parts]
        for parts in targets:
            if parts[0] == "adk_memory_kit" and len(parts) > 1:
                found.append((parts[1], node.lineno))
    return found


def _edges() -> dict[str, dict[str, list[str]]]:
    """``{importer: {imported: ["file:line", ...]}}`` between different packages."""
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(ROOT.rglob("*.py")):
        src = _package_of(path)
        for target, line in _imported_packages(path):
            if target != src:
                edges[src][target].append(f"{path.relative_to(ROOT.parent)}:{line}")
    return edges


def test_every_package_has_a_layer():
    packages = {_package_of(p) for p in ROOT.rglob("*.py")}
    missing = sorted(packages - set(LAYERS))
    assert not missing, f"place these packages in LAYERS (tests/architecture): {missing}"


def test_no_package_imports_a_package_that_imports_it_back():
    edges = _edges()
    cycles = []
    for a, targets in edges.items():
        for b in targets:
            if a in edges.get(b, {}):
                cycles.append(f"{a} <-> {b}: {targets[b][0]} and {edges[b][a][0]}")
    # longer cycles too: a depth-first search over the package graph
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in edges.get(node, {}):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*trail[trail.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    assert not cycles, "import cycles between packages:\n" + "\n".join(sorted(set(cycles)))


def test_imports_point_down_the_layers():
    wrong = [
        f"{src} (layer {LAYERS[src]}) imports {dst} (layer {LAYERS[dst]}) at {where[0]}"
        for src, targets in _edges().items()
        for dst, where in targets.items()
        if src in LAYERS and dst in LAYERS and LAYERS[dst] >= LAYERS[src]
    ]
    assert not wrong, "imports against the layering (see docs/architecture.md):\n" + "\n".join(
        sorted(wrong)
    )


def test_the_checker_sees_lazy_relative_and_type_only_imports():
    """The parser itself: imports inside functions, relative ones and type-only ones count."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from adk_memory_kit.memory.service import PgVectorMemoryService\n"
        "def later():\n"
        "    from adk_memory_kit.lifecycle import forget\n"
        "    import adk_memory_kit.recall.framing\n"
        "from ..core import scope\n"
        "from . import homes\n"
        "from adk_memory_kit import errors\n"
    )
    found = _imported_packages(ROOT / "routing" / "probe.py", source)
    assert sorted(found) == [
        ("core", 7),
        ("errors", 9),
        ("lifecycle", 5),
        ("memory", 3),
        ("recall", 6),
        ("routing", 8),
    ]
