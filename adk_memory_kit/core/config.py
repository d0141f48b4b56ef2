"""The kit's one configuration style: frozen pydantic models that validate at construction.

Subclass :class:`KitConfig`, give every field a ``Field(description=...)`` and constraints
(``ge``, ``le``, ...). A wrong value raises
:class:`~adk_memory_kit.errors.InvalidInputError` naming the model, the field and the rule
it broke, so it never reaches SQL or a model call. Unknown fields are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from adk_memory_kit.errors import InvalidInputError

_SHOWN_INPUT = (bool, int, float, type(None))


def describe_validation_error(model: str, exc: ValidationError) -> str:
    """One line per problem: ``Model.field: rule (got value)``; values are shown only when
    they are numbers, booleans or None (never text, which may come from a user)."""
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "(model)"
        shown = error.get("input")
        got = f" (got {shown!r})" if isinstance(shown, _SHOWN_INPUT) else ""
        problems.append(f"{model}.{where}: {error['msg']}{got}")
    return "invalid configuration: " + "; ".join(problems)


class KitConfig(BaseModel):
    """Base of the kit's configuration objects (frozen, unknown fields refused)."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InvalidInputError(describe_validation_error(type(self).__name__, exc)) from exc

    @classmethod
    def given(
        cls,
        config: object,
        options: Mapping[str, Any],
        *,
        name: str = "config",
        options_label: str = "its options",
    ) -> Self:
        """``config`` when one is given (it must be an instance of this model), else a model
        built from ``options``; both at once is an :class:`InvalidInputError`."""
        if config is None:
            return cls(**options)
        if options:
            raise InvalidInputError(f"pass either {options_label} or a {name}, not both")
        if not isinstance(config, cls):
            article = "an" if cls.__name__[:1] in "AEIOU" else "a"
            raise InvalidInputError(
                f"{name} must be {article} {cls.__name__}, got {type(config).__name__}"
            )
        return config
