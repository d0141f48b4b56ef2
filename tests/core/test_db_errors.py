"""core/db_errors: database errors become kit errors, classified, without user text."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import exc as sa_exc

from adk_memory_kit.core.db_errors import db_errors, describe, is_transient, translate
from adk_memory_kit.errors import (
    DatabaseUnavailableError,
    InvalidInputError,
    MemoryKitError,
    SchemaMismatchError,
)

SECRET = "my pin is 4921 and my dog is Rex"


def wrapped(cls, orig: BaseException) -> sa_exc.DBAPIError:
    """What SQLAlchemy raises: the statement and the parameters (user text) in the message."""
    return cls("INSERT INTO t (text) VALUES (%(text)s)", {"text": SECRET}, orig)


@pytest.mark.parametrize(
    ("raised", "kind", "transient"),
    [
        (
            wrapped(sa_exc.OperationalError, psycopg.OperationalError("connection refused")),
            DatabaseUnavailableError,
            True,
        ),
        (
            wrapped(sa_exc.OperationalError, psycopg.errors.AdminShutdown("terminating")),
            DatabaseUnavailableError,
            True,
        ),
        (
            wrapped(sa_exc.InternalError, psycopg.errors.SerializationFailure("could not")),
            DatabaseUnavailableError,
            True,
        ),
        (
            wrapped(sa_exc.OperationalError, psycopg.errors.DeadlockDetected("deadlock")),
            DatabaseUnavailableError,
            True,
        ),
        (
            wrapped(
                sa_exc.OperationalError,
                psycopg.errors.ProgramLimitExceeded(
                    f"index row size 2720 exceeds btree maximum 2704: {SECRET}"
                ),
            ),
            InvalidInputError,
            False,
        ),
        (
            wrapped(
                sa_exc.DataError,
                psycopg.errors.InvalidTextRepresentation(
                    f'invalid input syntax for type uuid: "{SECRET}"'
                ),
            ),
            InvalidInputError,
            False,
        ),
        (
            wrapped(sa_exc.IntegrityError, psycopg.errors.UniqueViolation(f"Key=({SECRET})")),
            InvalidInputError,
            False,
        ),
        (
            wrapped(sa_exc.ProgrammingError, psycopg.errors.UndefinedTable("no such table")),
            SchemaMismatchError,
            False,
        ),
        (
            wrapped(sa_exc.ProgrammingError, psycopg.errors.InsufficientPrivilege(SECRET)),
            DatabaseUnavailableError,
            False,
        ),
        (sa_exc.TimeoutError("QueuePool limit reached"), DatabaseUnavailableError, True),
        (ConnectionResetError("reset by peer"), DatabaseUnavailableError, True),
    ],
)
def test_each_database_error_becomes_a_classified_kit_error(raised, kind, transient):
    error = translate(raised, "storing session s-1")
    assert isinstance(error, kind) and error.transient is transient
    assert is_transient(raised) is transient
    message = str(error)
    assert message.startswith("storing session s-1 failed:")
    assert SECRET not in message and "4921" not in message
    assert "INSERT" not in message and "[parameters" not in message and "\n" not in message
    assert SECRET not in describe(raised)


def test_other_errors_are_not_database_errors():
    assert translate(ValueError(SECRET), "x") is None
    kit = InvalidInputError("bad id")
    assert translate(kit, "x") is kit
    assert describe(RuntimeError(SECRET)) == (
        "RuntimeError (message withheld: it may quote user data)"
    )


async def test_the_context_manager_chains_the_cause_and_passes_kit_errors_through():
    orig = psycopg.OperationalError("server closed the connection unexpectedly")
    with pytest.raises(DatabaseUnavailableError) as raised:
        async with db_errors("search for app a, user u"):
            raise wrapped(sa_exc.OperationalError, orig)
    assert isinstance(raised.value.__cause__, sa_exc.OperationalError)
    assert "server closed the connection" in str(raised.value)  # where, never what
    with pytest.raises(InvalidInputError):
        async with db_errors("x"):
            raise InvalidInputError("bad")
    with pytest.raises(KeyError):  # not a database error: untouched
        async with db_errors("x"):
            raise KeyError("k")
    assert issubclass(DatabaseUnavailableError, MemoryKitError)
