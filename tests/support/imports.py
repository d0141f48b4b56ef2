"""The import graph of a package tree, read from the source with ``ast`` (nothing is imported).

Every way one kit module can reach another counts:

- ``import``/``from ... import`` at module level, inside functions (lazy), under
  ``TYPE_CHECKING``, relative or absolute;
- the facade: ``import adk_memory_kit`` and ``from adk_memory_kit import Name`` (a name that is
  not a module) reach ``adk_memory_kit/__init__.py``, which imports every package;
- ``importlib``: in a file that calls ``import_module`` or ``__import__``, a string constant
  that names a kit module (``"adk_memory_kit.cli.memory"``) is an import (elsewhere such a
  string is a key or a resource package, not an import);
- code outside the package: ``agents``, ``samples``, ``tests`` and ``benchmarks`` are never
  imported by library code.

Modules are dotted names relative to the package root (``memory.service``; a package's
``__init__`` is the package's own name, ``memory``; the top-level ``__init__.py`` is
``__init__``). The first part of a module is its *package* (``cli`` for ``cli.py``).
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

FACADE = "__init__"
OUTSIDE = ("agents", "samples", "tests", "benchmarks")
_IMPORTERS = {"import_module", "__import__"}


@dataclass(frozen=True)
class Import:
    """One import of ``target`` (a module of the tree, or ``outside:<name>``) at ``line``."""

    target: str
    line: int


class Tree:
    """The modules of one package directory (``root``, e.g. ``.../adk_memory_kit``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.name = root.name
        self._string = re.compile(rf"^{re.escape(self.name)}(\.[A-Za-z_]\w*)+$")

    def files(self) -> list[Path]:
        return sorted(self.root.rglob("*.py"))

    def module_of(self, path: Path) -> str:
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        if parts == ["__init__"]:
            return FACADE
        if parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts)

    @staticmethod
    def package_of(module: str) -> str:
        return module.split(".")[0]

    def _is_module(self, parts: list[str]) -> bool:
        where = self.root.joinpath(*parts)
        return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()

    def resolve(self, parts: list[str]) -> str:
        """The module that ``root.<parts>`` names: its longest prefix that is a module
        (``FACADE`` when none is: a name the facade exports)."""
        for end in range(len(parts), 0, -1):
            if self._is_module(parts[:end]):
                return ".".join(parts[:end])
        return FACADE

    def imports(self, path: Path, source: str | None = None) -> list[Import]:
        """Every import of a module of this tree (or of code outside it) in ``path``."""
        if source is None:
            source = path.read_text(encoding="utf-8")
        module = self.module_of(path)
        here = [] if module == FACADE else module.split(".")
        package_parts = here if path.name == "__init__.py" else here[:-1]
        found: list[Import] = []
        tree = ast.parse(source, str(path))
        by_name = any(
            (isinstance(n, ast.Name) and n.id in _IMPORTERS)
            or (isinstance(n, ast.Attribute) and n.attr in _IMPORTERS)
            or (isinstance(n, ast.alias) and n.name in _IMPORTERS)
            for n in ast.walk(tree)
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    if parts[0] == self.name:
                        # ``import pkg`` reaches the facade; ``import pkg.a.b`` the module
                        found.append(
                            Import(self.resolve(parts[1:]) if parts[1:] else FACADE, node.lineno)
                        )
                    elif parts[0] in OUTSIDE:
                        found.append(Import(f"outside:{parts[0]}", node.lineno))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package_parts[: len(package_parts) - (node.level - 1)]
                    prefix = base + (node.module.split(".") if node.module else [])
                elif node.module and node.module.split(".")[0] == self.name:
                    prefix = node.module.split(".")[1:]
                elif node.module and node.module.split(".")[0] in OUTSIDE:
                    found.append(Import(f"outside:{node.module.split('.')[0]}", node.lineno))
                    continue
                else:
                    continue
                for alias in node.names:
                    # ``from pkg.a import b``: the module a.b if there is one, else a (else
                    # the facade: ``from pkg import Name``)
                    found.append(Import(self.resolve([*prefix, alias.name]), node.lineno))
            elif by_name and isinstance(node, ast.Constant) and isinstance(node.value, str):
                if self._string.match(node.value):
                    parts = node.value.split(".")[1:]
                    if self._is_module(parts):  # importlib.import_module("pkg.a.b")
                        found.append(Import(".".join(parts), node.lineno))
        return found

    def module_edges(self) -> dict[str, dict[str, list[str]]]:
        """``{importer: {imported: ["file:line", ...]}}`` between different modules."""
        edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for path in self.files():
            src = self.module_of(path)
            for imp in self.imports(path):
                if imp.target != src:
                    edges[src][imp.target].append(
                        f"{path.relative_to(self.root.parent)}:{imp.line}"
                    )
        return edges

    def package_edges(self) -> dict[str, dict[str, list[str]]]:
        """The same between different packages."""
        edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for src, targets in self.module_edges().items():
            for dst, where in targets.items():
                a, b = self.package_of(src), self.package_of(dst)
                if a != b:
                    edges[a][b] += where
        return edges

    def packages(self) -> set[str]:
        return {self.package_of(self.module_of(p)) for p in self.files()}


def circles(edges: dict[str, dict[str, list[str]]]) -> list[set[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if node not in index:
            visit(node)
    return found


def describe_circle(component: Iterable[str], edges: dict[str, dict[str, list[str]]]) -> str:
    """``a -> b (file:line), b -> a (file:line)`` for the edges inside ``component``."""
    members = set(component)
    return ", ".join(
        f"{a} -> {b} ({where[0]})"
        for a in sorted(members)
        for b, where in sorted(edges.get(a, {}).items())
        if b in members
    )


def package_circles(tree: Tree) -> list[str]:
    edges = tree.package_edges()
    return sorted(describe_circle(c, edges) for c in circles(edges))


def _inside_edges(tree: Tree) -> dict[str, dict[str, list[str]]]:
    return {
        src: {dst: w for dst, w in ts.items() if tree.package_of(dst) == tree.package_of(src)}
        for src, ts in tree.module_edges().items()
    }


def module_circles(tree: Tree) -> list[frozenset[str]]:
    """Every circle between modules of the same package, as its set of modules."""
    return [frozenset(c) for c in circles(_inside_edges(tree))]


def circles_inside_packages(tree: Tree, known: Iterable[frozenset[str]] = ()) -> list[str]:
    """Circles between modules of the same package, except the ``known`` ones (exactly)."""
    inside = _inside_edges(tree)
    allowed = set(known)
    return sorted(
        describe_circle(c, inside) for c in circles(inside) if frozenset(c) not in allowed
    )


def layer_violations(tree: Tree, layers: dict[str, int]) -> list[str]:
    """Imports that do not point to a lower layer; imports of code outside the package."""
    wrong = []
    for src, targets in tree.package_edges().items():
        for dst, where in targets.items():
            if dst.startswith("outside:"):
                wrong.append(f"{src} imports {dst.removeprefix('outside:')}/ at {where[0]}")
            elif src in layers and dst in layers and layers[dst] >= layers[src]:
                wrong.append(
                    f"{src} (layer {layers[src]}) imports {dst} (layer {layers[dst]}) at {where[0]}"
                )
    return sorted(wrong)
