"""Dependencies between the kit's modules run one way (checked from the source with ``ast``).

A "package" is a top-level module or package of ``adk_memory_kit`` (``core``, ``memory``,
``routing``, ``errors`` ...). Every import counts: module level, inside functions (lazy),
under ``TYPE_CHECKING``, through the facade (``import adk_memory_kit``, ``from adk_memory_kit
import Name``) and by name through ``importlib`` (tests/support/imports.py says how). Packages
import only lower layers; no two modules import each other, inside a package either. See
docs/architecture.md for the picture.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import adk_memory_kit
from tests.support.imports import (
    Tree,
    circles_inside_packages,
    layer_violations,
    module_circles,
    package_circles,
)

ROOT = Path(adk_memory_kit.__file__).resolve().parent
TREE = Tree(ROOT)

#: Each package may import only packages on a LOWER layer (and itself). A new package must be
#: placed here; moving one up or down is a design decision (update docs/architecture.md too).
LAYERS: dict[str, int] = {
    # 0: leaves
    "errors": 0,
    # 1: neutral contracts (the session selector, index keys, markers) and the one door to
    #    private ADK names
    "core": 1,
    "_adk_compat": 1,
    "embedders": 1,  # the embedding models need nothing of the kit but errors
    # the language-neutral text helpers (sentences, content words, people, which language a
    # text is in) need nothing of the kit: the detectors and the store read them alike
    "text": 1,
    # 2: infrastructure and stand-alone helpers
    "db": 2,
    "sensitive": 2,  # the health head embeds with the bundled MiniLM
    # 3: storage and the components that need only infrastructure. The long-term store is a
    #    floor: it knows no router, write policy, lifecycle or recall (issue 42)
    "memory": 3,
    "profile": 3,
    "pruning": 3,
    "working_memory": 3,
    # 4: components over storage: recall, the episodic log, the context budget, the test double
    "recall": 4,
    "episodic": 4,
    "context": 4,
    "testing": 4,
    # 5: the conversation floor: extraction, routing, the write policy, updates and forgets
    "routing": 5,
    # 6: the default assembly (the store with the router's selector wired in)
    "assembly": 6,
    # 7: orchestration over memory, sessions and routing; deprecated aliases of moved names
    "lifecycle": 7,
    "adk_services": 7,
    "tools": 7,  # MemoryToolset: the model's own memory tools, over memory and routing
    "write_policy": 7,  # moved to routing: names kept for one release, with a warning
    # 8: applications and the facade
    "console": 8,
    "mcp": 8,  # the MCP server (`adk-memory-kit mcp`): memory, routing and recall over MCP
    "stack": 8,  # the recommended stack: every part on one database
    "demo": 9,
    # 10: the command line wires every application's subcommands (by name, importlib)
    "cli": 10,
    "__init__": 11,
}


#: Circles between modules of one package that are known and scheduled, in packages being
#: rewritten on other branches (issue 27). Nothing may be added; each leaves with its fix.
KNOWN_CIRCLES: list[frozenset[str]] = []


def test_every_package_has_a_layer():
    missing = sorted(TREE.packages() - set(LAYERS))
    assert not missing, f"place these packages in LAYERS (tests/architecture): {missing}"


def test_no_package_imports_a_package_that_imports_it_back():
    found = package_circles(TREE)
    assert not found, "import circles between packages:\n" + "\n".join(found)


def test_imports_point_down_the_layers():
    wrong = layer_violations(TREE, LAYERS)
    assert not wrong, "imports against the layering (see docs/architecture.md):\n" + "\n".join(
        wrong
    )


#: The only packages that may import the test double (``testing``, the scripted model): the
#: offline demo. Library code runs against real models only.
MAY_IMPORT_THE_TEST_DOUBLE = {"demo"}


def test_library_code_never_imports_the_test_double():
    importers = sorted(
        f"{src} at {where[0]}"
        for src, targets in TREE.package_edges().items()
        for dst, where in targets.items()
        if dst == "testing" and src not in MAY_IMPORT_THE_TEST_DOUBLE
    )
    assert not importers, f"library code imports adk_memory_kit.testing: {importers}"


def test_no_two_modules_of_a_package_import_each_other():
    found = circles_inside_packages(TREE, KNOWN_CIRCLES)
    assert not found, "import circles inside a package:\n" + "\n".join(found)


def test_the_known_circles_are_still_there():
    """An exception that no longer holds comes off the list (it must not hide a new one)."""
    present = set(module_circles(TREE))
    gone = [sorted(c) for c in KNOWN_CIRCLES if c not in present]
    assert not gone, f"remove from KNOWN_CIRCLES: {gone}"


# ---- the checker itself, on small synthetic trees -------------------------------------------

SYNTHETIC_LAYERS = {"errors": 0, "core": 1, "memory": 2, "cli": 3, "__init__": 4}
CLEAN = {
    "__init__.py": "from adk_memory_kit.memory.store import Store\n",
    "errors.py": "",
    "core/__init__.py": "",
    "core/ids.py": "from adk_memory_kit import errors\n",
    "memory/__init__.py": "from adk_memory_kit.memory.store import Store\n",
    "memory/store.py": "from adk_memory_kit.core.ids import make_id\nclass Store: ...\n",
    "memory/cli.py": "from adk_memory_kit.memory.store import Store\n",
    "cli.py": "import importlib\nimportlib.import_module('adk_memory_kit.cli.memory')\n",
}


def _tree(tmp_path: Path, **changed: str) -> Tree:
    """A synthetic ``adk_memory_kit`` tree: ``CLEAN`` with files changed (``a__b`` is a/b.py)."""
    root = tmp_path / "adk_memory_kit"
    files = {**CLEAN, **{name.replace("__", "/") + ".py": src for name, src in changed.items()}}
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return Tree(root)


def _failures(tree: Tree) -> list[str]:
    return (
        layer_violations(tree, SYNTHETIC_LAYERS)
        + package_circles(tree)
        + circles_inside_packages(tree)
    )


def test_the_clean_synthetic_tree_passes(tmp_path):
    assert _failures(_tree(tmp_path)) == []


def test_the_checker_sees_lazy_relative_and_type_only_imports(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from adk_memory_kit.memory.store import Store\n"
        "def later():\n"
        "    from adk_memory_kit.memory import store\n"
        "    import adk_memory_kit.core.ids\n"
        "from ..errors import InvalidInputError\n"
        "from . import ids\n"
        "from adk_memory_kit import errors\n"
    )
    tree = _tree(tmp_path, core__probe=source)
    found = sorted((i.target, i.line) for i in tree.imports(tree.root / "core" / "probe.py"))
    assert found == [
        ("core.ids", 6),
        ("core.ids", 8),
        ("errors", 7),
        ("errors", 9),
        ("memory.store", 3),
        ("memory.store", 5),
    ]


def test_a_module_name_as_a_key_is_not_an_import(tmp_path):
    tree = _tree(tmp_path, core__ids='KEY = "adk_memory_kit.cli"\n')
    assert tree.imports(tree.root / "core" / "ids.py") == []


@pytest.mark.parametrize(
    ("hole", "changed", "failure"),
    [
        (
            "a name from the facade",
            {"core__ids": "from adk_memory_kit import Store\n"},
            "core (layer 1) imports __init__ (layer 4) at adk_memory_kit/core/ids.py:1",
        ),
        (
            "import adk_memory_kit",
            {"core__ids": "def later():\n    import adk_memory_kit\n"},
            "core (layer 1) imports __init__ (layer 4) at adk_memory_kit/core/ids.py:2",
        ),
        (
            "importlib by name",
            {"core__ids": "import importlib\nimportlib.import_module('adk_memory_kit.cli')\n"},
            "core (layer 1) imports cli (layer 3) at adk_memory_kit/core/ids.py:2",
        ),
        (
            "a circle inside a package",
            {"memory__store": "def later():\n    from adk_memory_kit.memory import cli\n"},
            "memory.cli -> memory.store (adk_memory_kit/memory/cli.py:1), "
            "memory.store -> memory.cli (adk_memory_kit/memory/store.py:2)",
        ),
        (
            "a circle through a package's own __init__",
            {"memory__store": "from adk_memory_kit.memory import Store\n"},
            "memory -> memory.store (adk_memory_kit/memory/__init__.py:1), "
            "memory.store -> memory (adk_memory_kit/memory/store.py:1)",
        ),
        (
            "code outside the package",
            {"memory__cli": "from agents.research_assistant.tools import web_search\n"},
            "memory imports agents/ at adk_memory_kit/memory/cli.py:1",
        ),
        (
            "a circle between packages",
            {"errors": "from adk_memory_kit.core.ids import make_id\n"},
            "core -> errors (adk_memory_kit/core/ids.py:1), "
            "errors -> core (adk_memory_kit/errors.py:1)",
        ),
    ],
)
def test_the_checker_fails_on_each_kind_of_hole(tmp_path, hole, changed, failure):
    failures = _failures(_tree(tmp_path, **changed))
    assert failure in failures, f"{hole}: {failures}"
