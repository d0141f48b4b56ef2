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


def _readme_table_names() -> set[str]:
    """The names in the "public names" column of the README's table of parts."""
    table = README[README.index("| part | public names | details |") : README.index("## Measured")]
    names: set[str] = set()
    for line in table.splitlines():
        if line.startswith("|") and not line.startswith("|---") and "public names" not in line:
            names |= set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", line.split("|")[2]))
    return names


def test_the_readme_table_and_all_are_equal():
    """Both directions: every name the table lists imports from the top level, and the top
    level exports nothing the table leaves out."""
    names = _readme_table_names()
    assert names, "the parser found no names in the README's table"
    assert names - set(adk_memory_kit.__all__) == set(), "in the README table, not in __all__"
    assert set(adk_memory_kit.__all__) - names == set(), "in __all__, not in the README table"
    for name in names:
        assert getattr(adk_memory_kit, name) is not None


@pytest.mark.parametrize(
    ("old", "home"),
    [
        ("MemoryHome", "adk_memory_kit.routing"),
        ("Candidate", "adk_memory_kit.routing"),
        ("ReviewQueue", "adk_memory_kit.routing"),
        ("LocalMiniLMEmbedder", "adk_memory_kit.embedders"),
    ],
)
def test_a_name_the_last_readme_taught_still_resolves_with_a_warning(old, home):
    import importlib

    with pytest.warns(DeprecationWarning, match=home.replace(".", r"\.")):
        value = getattr(adk_memory_kit, old)
    assert value is getattr(importlib.import_module(home), old)


def test_moved_write_policy_names_warn_and_resolve():
    import adk_memory_kit.write_policy as old_home
    from adk_memory_kit.routing.write_policy import select_events

    with pytest.warns(DeprecationWarning, match=r"adk_memory_kit\.routing\.write_policy"):
        assert old_home.select_events is select_events
    with pytest.raises(AttributeError):
        old_home.no_such_name  # noqa: B018
