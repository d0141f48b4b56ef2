"""RecallBudget and WorkingMemoryConfig: the kit's one config style, validated at construction."""

from __future__ import annotations

import pydantic
import pytest

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.recall.preload import BudgetedPreloadMemoryTool, RecallBudget
from adk_memory_kit.working_memory import WorkingMemoryConfig


@pytest.mark.parametrize(
    ("build", "names"),
    [
        (lambda: RecallBudget(max_tokens=0), "RecallBudget.max_tokens"),
        (lambda: RecallBudget(max_results=-1), "RecallBudget.max_results"),
        (lambda: RecallBudget(max_tokns=10), "RecallBudget.max_tokns"),
        (lambda: BudgetedPreloadMemoryTool(max_tokens=0), "RecallBudget.max_tokens"),
        (lambda: WorkingMemoryConfig(max_view_chars=100), "WorkingMemoryConfig.max_view_chars"),
        (lambda: WorkingMemoryConfig(max_facts="many"), "WorkingMemoryConfig.max_facts"),
    ],
)
def test_a_wrong_value_fails_at_construction_naming_the_field(build, names):
    with pytest.raises(InvalidInputError, match=names):
        build()


def test_configs_are_frozen_and_keep_their_defaults():
    budget = RecallBudget()
    assert (budget.max_tokens, budget.max_results, budget.include_full_profile) == (800, 5, True)
    with pytest.raises(pydantic.ValidationError):
        budget.max_tokens = 10
    with pytest.raises(pydantic.ValidationError):
        WorkingMemoryConfig().max_facts = 3


def test_vocabulary_values_become_tuples():
    budget = RecallBudget(known_values={"diet": ["vegan", "halal"], "seat": "aisle"})
    assert budget.known_values == {"diet": ("vegan", "halal"), "seat": ("aisle",)}


def test_every_field_is_described():
    for model in (RecallBudget, WorkingMemoryConfig):
        undocumented = [n for n, f in model.model_fields.items() if not f.description]
        assert not undocumented, f"{model.__name__}: {undocumented}"
