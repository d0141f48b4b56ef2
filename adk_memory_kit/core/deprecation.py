"""Names that moved keep working for one release, with a ``DeprecationWarning`` naming the new
home (CHANGELOG lists each). A module whose names moved ends with::

    __getattr__ = moved_names(__name__, {"OldName": "adk_memory_kit.new.module"})
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any


def moved_names(module: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that finds each moved name in its new module (imported on first
    use, never at import time) and warns once per access; any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new_name = name
        if ":" in home:
            home, new_name = home.split(":", 1)
        warnings.warn(
            f"{module}.{name} moved to {home}.{new_name}; the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), new_name)

    return __getattr__
