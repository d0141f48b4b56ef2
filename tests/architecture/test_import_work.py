"""Importing does no work: the facade resolves names on first use, and each floor loads only
what it needs (checked in a fresh interpreter, so nothing earlier in the run is loaded)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _kit_packages_after(code: str) -> set[str]:
    """The kit's top-level packages loaded after ``code`` runs in a fresh interpreter."""
    probe = (
        f"{code}\nimport sys, json\n"
        "print(json.dumps(sorted({m.split('.')[1] for m in sys.modules "
        "if m.startswith('adk_memory_kit.')})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_the_package_loads_no_component():
    assert _kit_packages_after("import adk_memory_kit") <= {"core", "errors"}


def test_importing_pruning_loads_pruning_and_its_floors_only():
    assert _kit_packages_after("import adk_memory_kit.pruning") <= {
        "pruning",
        "core",
        "errors",
        "_adk_compat",
    }


@pytest.mark.parametrize("module", ["adk_memory_kit.memory", "adk_memory_kit.memory.service"])
def test_the_storage_floor_loads_no_language(module):
    loaded = _kit_packages_after(f"import {module}")
    assert "memory" in loaded
    assert not loaded & {"routing", "write_policy", "lifecycle", "recall", "assembly"}, loaded


def test_a_name_of_the_facade_loads_its_own_module_on_first_use():
    loaded = _kit_packages_after("from adk_memory_kit import ToolPayloadPruningPlugin")
    assert "pruning" in loaded
    assert not loaded & {"routing", "memory", "lifecycle"}, loaded
