"""Neutral contracts in adk_memory_kit.core: Scope, DataHome, validation."""

from __future__ import annotations

import pytest

from adk_memory_kit.core import (
    DataHome,
    FunctionDataHome,
    Scope,
    check_scope,
    clean_text,
    normalize_key,
    parse_time,
)
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing import ReviewQueue


def test_scope_is_a_validated_frozen_value():
    scope = Scope("app", "alice")
    assert scope == Scope("app", "alice") and hash(scope) == hash(Scope("app", "alice"))
    assert scope.params() == {"app": "app", "user": "alice"}
    with pytest.raises(AttributeError):
        scope.user_id = "bob"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("app", "user", "bad"),
    [
        ("", "u", "app_name"),
        ("a", "  ", "user_id"),
        ("a", None, "user_id"),
        ("a\x00", "u", "app_name"),
    ],
)
def test_a_bad_scope_names_the_bad_part(app, user, bad):
    with pytest.raises(InvalidInputError, match=bad):
        Scope(app, user)
    with pytest.raises(InvalidInputError, match=bad):
        check_scope(app, user)


def test_clean_text_and_keys():
    assert clean_text("a\x00b") == "a\ufffdb"
    assert clean_text("\ud83d") == "\ufffd"
    assert normalize_key(" Home-Airport ") == "home_airport"
    assert normalize_key("") is None
    with pytest.raises(InvalidInputError):
        normalize_key("9lives")
    assert parse_time("2026-01-02T03:04:05Z").tzinfo is not None
    assert parse_time("not a time") is None


async def test_data_home_is_a_protocol_that_function_homes_and_the_review_queue_meet():
    async def count(app: str, user: str) -> int:
        return 3

    async def delete(app: str, user: str) -> int:
        return 3

    home = FunctionDataHome("extra", count, delete)
    assert isinstance(home, DataHome)
    assert await home.count("a", "u") == 3
    queue_home = ReviewQueue("postgresql+psycopg://h/d").data_home()
    assert isinstance(queue_home, DataHome) and queue_home.name == "review_queue"
    assert not isinstance(object(), DataHome)


@pytest.mark.parametrize("bad", [0, -3, True, False, 2.0, "5", None])
def test_check_positive_int_refuses_anything_but_a_whole_number_from_one(bad):
    from adk_memory_kit.core.validation import check_positive_int

    with pytest.raises(InvalidInputError, match=r"^limit must be a positive whole number of rows$"):
        check_positive_int("limit", bad, unit="rows")
    with pytest.raises(InvalidInputError, match=r"^limit must be a positive whole number$"):
        check_positive_int("limit", bad)


def test_check_positive_int_returns_the_value():
    from adk_memory_kit.core.validation import check_positive_int

    assert check_positive_int("limit", 1) == 1
    assert check_positive_int("limit", 10**12) == 10**12


@pytest.mark.parametrize("bad", [0, True, 1.5])
def test_memory_toolset_recall_limit_is_checked(bad):
    from adk_memory_kit.tools.memory_toolset import MemoryToolset

    with pytest.raises(InvalidInputError, match="recall_limit must be a positive whole number"):
        MemoryToolset(recall_limit=bad)
