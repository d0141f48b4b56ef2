"""The top level exports what the README teaches; everything else lives in its package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import adk_memory_kit

REPO = Path(adk_memory_kit.__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _top_level_imports(text: str) -> set[str]:
    names: set[str] = set()
    for block in re.findall(r"from adk_memory_kit import \(?([^)\n]*(?:\n[^)]*)?)\)?", text):
        names |= {n.strip() for n in block.replace("\n", ",").split(",") if n.strip()}
    return {n for n in names if n.isidentifier()}


def test_every_public_name_is_taught_by_the_readme():
    untaught = [n for n in adk_memory_kit.__all__ if not re.search(rf"\b{n}\b", README)]
    assert not untaught, f"in __all__ but not in README.md: {untaught}"


def test_every_top_level_import_in_readme_samples_and_agents_is_public():
    texts = [README] + [
        p.read_text(encoding="utf-8")
        for folder in ("samples", "agents")
        for p in sorted((REPO / folder).rglob("*.py"))
    ]
    imported = set().union(*(_top_level_imports(t) for t in texts))
    assert imported, "the parser found no imports"
    assert imported <= set(adk_memory_kit.__all__), imported - set(adk_memory_kit.__all__)


def test_public_names_resolve():
    for name in adk_memory_kit.__all__:
        assert getattr(adk_memory_kit, name) is not None


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError):
        adk_memory_kit.NoSuchThing  # noqa: B018
