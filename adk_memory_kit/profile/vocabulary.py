"""The fixed vocabulary of user preferences that may live in ``user:`` state.

Letting a model invent state keys produces near-duplicates (``user:diet``,
``user:dietary_pref``, ``user:food``) each holding a different answer. Only names listed here
are ever written, as ``user:pref_<name>`` with ``user:pref_<name>_at`` (the time written);
anything else is rejected with :class:`UnknownPreferenceError`, never mapped or invented.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from adk_memory_kit.core.validation import normalize_key, short
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.profile.presets import DEFAULT_KNOWN_VALUES, DEFAULT_PREFERENCES

USER_PREF_PREFIX = "user:pref_"
WRITTEN_AT_SUFFIX = "_at"


class UnknownPreferenceError(InvalidInputError):
    """A preference name outside the configured vocabulary."""


@dataclass(frozen=True)
class PreferenceVocabulary:
    """Allowed preference names with a description each, and optional allowed values.

    ``allowed_values`` restricts a name to a closed set (compared case-insensitively);
    ``max_value_chars`` bounds free-text values, because ``user:`` state is loaded into every
    session of the user and must stay small.
    """

    descriptions: Mapping[str, str]
    allowed_values: Mapping[str, frozenset[str]] = field(default_factory=dict)
    max_value_chars: int = 120

    def __post_init__(self) -> None:
        clean: dict[str, str] = {}
        for name, description in self.descriptions.items():
            norm = normalize_key(name)
            if norm is None or norm.endswith(WRITTEN_AT_SUFFIX):
                raise InvalidInputError(f"preference name {short(name)} is not usable")
            clean[norm] = description
        if not clean:
            raise InvalidInputError("a PreferenceVocabulary needs at least one name")
        values = {
            normalize_key(k): frozenset(v.lower() for v in vals)
            for k, vals in self.allowed_values.items()
        }
        unknown = set(values) - set(clean)
        if unknown:
            raise InvalidInputError(f"allowed_values names not in the vocabulary: {unknown}")
        object.__setattr__(self, "descriptions", MappingProxyType(clean))
        object.__setattr__(self, "allowed_values", MappingProxyType(values))

    @classmethod
    def of(cls, names: Iterable[str] | Mapping[str, str], **kwargs) -> PreferenceVocabulary:
        """Build from a list of names or a ``{name: description}`` mapping."""
        if not isinstance(names, Mapping):
            names = {n: n.replace("_", " ") for n in names}
        return cls(dict(names), **kwargs)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self.descriptions))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self.descriptions

    def check_name(self, name: str) -> str:
        """The normalized name, or :class:`UnknownPreferenceError` listing the allowed ones."""
        norm = name.strip().lower() if isinstance(name, str) else None
        if not norm or norm not in self.descriptions:
            raise UnknownPreferenceError(
                f"unknown preference {short(name)}; allowed names: {', '.join(self.names)}. "
                "Add it to the PreferenceVocabulary to store it."
            )
        return norm

    def check_value(self, name: str, value: object) -> str:
        """The cleaned value for ``name`` or :class:`InvalidInputError` saying why not."""
        if not isinstance(value, str) or not value.strip():
            raise InvalidInputError(f"preference {short(name)} needs a non-empty text value")
        cleaned = " ".join(value.split())
        if len(cleaned) > self.max_value_chars:
            raise InvalidInputError(
                f"preference {short(name)} value is {len(cleaned)} characters; the limit is "
                f"{self.max_value_chars} (user: state is loaded into every session)"
            )
        allowed = self.allowed_values.get(name)
        if allowed is not None and cleaned.lower() not in allowed:
            raise InvalidInputError(
                f"preference {short(name)} accepts only: {', '.join(sorted(allowed))}"
            )
        return cleaned

    @staticmethod
    def state_key(name: str) -> str:
        """``user:pref_<name>``."""
        return f"{USER_PREF_PREFIX}{name}"

    @staticmethod
    def written_at_key(name: str) -> str:
        """``user:pref_<name>_at``."""
        return f"{USER_PREF_PREFIX}{name}{WRITTEN_AT_SUFFIX}"

    def known_values(self) -> dict[str, tuple[str, ...]]:
        """Per name, the values that say a memory is about it (for the recall conflict rule).

        ``allowed_values`` plus the kit's defaults for the standard names
        (:data:`~adk_memory_kit.profile.presets.DEFAULT_KNOWN_VALUES`), e.g. pass
        ``known_values=vocabulary.known_values()`` to the recall tools.
        """
        merged: dict[str, tuple[str, ...]] = {}
        for name in self.names:
            values = (
                *DEFAULT_KNOWN_VALUES.get(name, ()),
                *sorted(self.allowed_values.get(name, ())),
            )
            if values:
                merged[name] = tuple(dict.fromkeys(values))
        return merged

    def describe(self) -> str:
        """One line per name, for tool docstrings and extraction prompts."""
        lines = []
        for name in self.names:
            line = f"- {name}: {self.descriptions[name]}"
            if name in self.allowed_values:
                line += f" (one of: {', '.join(sorted(self.allowed_values[name]))})"
            lines.append(line)
        return "\n".join(lines)


DEFAULT_VOCABULARY = PreferenceVocabulary(DEFAULT_PREFERENCES)
"""The kit's default vocabulary (from :data:`~.presets.DEFAULT_PREFERENCES`)."""
