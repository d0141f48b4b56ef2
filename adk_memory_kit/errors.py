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


class SchemaMismatchError(MemoryKitError):
    """The database holds a schema this version of the kit cannot use."""


class EmbeddingDimensionError(SchemaMismatchError):
    """The embedder's dimension differs from the one the table was created with."""


class EmbedderError(MemoryKitError):
    """The embedding model could not be loaded or failed to embed."""


class DatabaseUnavailableError(MemoryKitError):
    """The database could not be reached or lacks a required extension."""
