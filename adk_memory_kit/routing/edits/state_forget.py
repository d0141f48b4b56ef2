"""A forget request reaches the session's own homes: ``user:`` preferences, session notes,
session facts and the working-memory scratchpad, wherever they share a word naming it."""

from __future__ import annotations

from typing import Any

from adk_memory_kit.routing.edits.forget_requests import VAGUE_WORDS
from adk_memory_kit.routing.edits.subject_words import GENERIC, names_it, possessor
from adk_memory_kit.routing.edits.working_memory_forget import forget_in_working_memory
from adk_memory_kit.routing.outcomes import NOTES_KEY, SESSION_FACT_PREFIX
from adk_memory_kit.text.signals import content_stems, overlap


def forget_in_state(state: Any, subject: str, homes: list[str]) -> int:
    """Clear what ``subject`` names from the session's state homes; returns how many items
    went and appends each home reached to ``homes`` (once)."""
    deleted = 0
    wanted = content_stems(subject)
    # a preference or scratchpad fact must share a naming word, not just "number",
    # "name", "old" or "details" ("my sister's name" is not the preferred name)
    naming = wanted - GENERIC - VAGUE_WORDS
    # the user's own preferences are never someone else's detail ("forget my wife's
    # allergy" leaves the user's allergies alone)
    theirs = possessor(subject) is not None
    for key, value in list(state.to_dict().items()):
        if theirs or not key.startswith("user:pref_") or key.endswith("_at") or value is None:
            continue
        if names_it(naming, key.removeprefix("user:pref_"), value):
            state[key] = None
            state[f"{key}_at"] = None
            deleted += 1
            if "user_state" not in homes:
                homes.append("user_state")
    notes = list(state.get(NOTES_KEY) or [])
    kept = [n for n in notes if overlap(content_stems(str(n)), wanted) < 0.5]
    if len(kept) != len(notes):
        state[NOTES_KEY] = kept
        deleted += len(notes) - len(kept)
        homes.append("session_state")
    # a session fact under its own key ("fact_trip_destination" = "Lima" for "my Peru
    # trip" when it names the trip) goes the way a preference does
    for key, value in list(state.to_dict().items()):
        if not key.startswith(SESSION_FACT_PREFIX) or value is None:
            continue
        if names_it(naming, key.removeprefix(SESSION_FACT_PREFIX), value):
            state[key] = None
            deleted += 1
            if "session_state" not in homes:
                homes.append("session_state")
    if scratch := forget_in_working_memory(state, naming, GENERIC | VAGUE_WORDS):
        deleted += scratch
        homes.append("working_memory")
    return deleted
