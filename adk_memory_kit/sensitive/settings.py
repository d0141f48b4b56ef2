"""The gate's one switch: ``sensitivity``, ``"strict"`` (the default) or ``"balanced"``.

``strict`` fails closed: a value-shaped token near a cue word is redacted even with no
checksum or vendor format, and a sentence that may be about someone's health counts as
health when the classifier is unsure or unavailable. ``balanced`` keeps the high-confidence
layers (checksums, vendor formats, keyword-introduced passwords) plus the strong cues only
(password, PIN, recovery, routing ...), for deployments that must store more text and accept
more risk. See ``docs/privacy.md`` for the trade.

Set it once per process (:func:`set_sensitivity`, or ``ADK_MEMORY_KIT_SENSITIVITY`` in the
environment), or for a block of code (:func:`sensitivity_scope`; a context variable, so
concurrent tasks do not see each other's scope).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

from pydantic import BaseModel, ConfigDict

Sensitivity = Literal["strict", "balanced"]
#: Environment variable read at import: the process default.
SENSITIVITY_ENV = "ADK_MEMORY_KIT_SENSITIVITY"


class GateSettings(BaseModel):
    """The gate's configuration (validated: anything but the two levels raises)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sensitivity: Sensitivity = "strict"


def _from_env() -> GateSettings:
    raw = os.environ.get(SENSITIVITY_ENV, "").strip().lower()
    return GateSettings(sensitivity=raw) if raw else GateSettings()  # type: ignore[arg-type]


_default: GateSettings = _from_env()
_scoped: ContextVar[GateSettings | None] = ContextVar("adk_memory_kit_gate", default=None)


def set_sensitivity(level: Sensitivity) -> None:
    """Set the process-wide level (a ``pydantic.ValidationError`` for an unknown one)."""
    global _default
    _default = GateSettings(sensitivity=level)


def get_sensitivity() -> Sensitivity:
    """The level in force here: the innermost :func:`sensitivity_scope`, else the process's."""
    scoped = _scoped.get()
    return (scoped or _default).sensitivity


def is_strict() -> bool:
    """Whether the gate fails closed here (``get_sensitivity() == "strict"``)."""
    return get_sensitivity() == "strict"


@contextmanager
def sensitivity_scope(level: Sensitivity) -> Iterator[None]:
    """Use ``level`` inside the ``with`` block (this task and the tasks it starts only)."""
    token = _scoped.set(GateSettings(sensitivity=level))
    try:
        yield
    finally:
        _scoped.reset(token)
