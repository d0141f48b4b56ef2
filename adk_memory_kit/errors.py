"""Error types raised by adk-memory-kit. Every message says what to do next."""

from __future__ import annotations


class MemoryKitError(Exception):
    """Base class for every error the kit raises on purpose.

    ``transient`` is true when retrying the same call later may succeed (the database was
    unreachable, a lock conflict); retry loops (the closer, the idle job) retry only those.
    """

    transient: bool = False


class InvalidInputError(MemoryKitError, ValueError):
    """An argument is malformed (empty id, wrong type, NUL bytes in an id...)."""


class MemoryNotFoundError(InvalidInputError):
    """The memory id names no memory of this app and user (another user's id, or deleted)."""


class SchemaMismatchError(MemoryKitError):
    """The database holds a schema this version of the kit cannot use."""


class EmbeddingDimensionError(SchemaMismatchError):
    """The embedder's dimension differs from the one the table was created with."""


class EmbedderError(MemoryKitError):
    """The embedding model could not be loaded or failed to embed."""


class DatabaseUnavailableError(MemoryKitError):
    """The database could not be reached or lacks a required extension."""


class UserBeingForgottenError(MemoryKitError):
    """A write for a user whose forget has started and not completed (the forget fence).

    Permanent until the forget completes, or the application lifts the fence
    (``adk_memory_kit.lifecycle.lift_forget_fence``; docs/lifecycle.md, "The forget fence").
    """


class ContextBudgetExceededError(MemoryKitError):
    """Even the smallest request the context budget allows is larger than ``max_tokens``.

    Raised before the model is called. ``needed`` and ``max_tokens`` are estimated tokens;
    ``sections`` maps each section to its estimated tokens in that smallest request.
    """

    def __init__(self, message: str, *, needed: int, max_tokens: int, sections: dict[str, int]):
        super().__init__(message)
        self.needed = needed
        self.max_tokens = max_tokens
        self.sections = sections
