"""What the agent is told, before it replies, about a forget request the user just made.

The routing plugin acts on a request to forget (and on the user's answer to a question one
left pending) before the model is called, then adds one of these notes to the request's
system instruction, so the reply says what was done: the count removed, that nothing matched,
or (a match too weak to act on) the memories it may mean, for the user to confirm. The notes
hold counts and the user's own memories, never anything of another user's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_PREFIX = "[memory] "


def _memories(n: int) -> str:
    return f"{n} stored memory" if n == 1 else f"{n} stored memories"


def combined_record(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One outcome record for several requests in one message: the deletions summed; a
    confirmation asked when any asked one (a count before "vague" / "unclear")."""
    deleted = sum(int(r.get("deleted") or 0) for r in records)
    unsure = [r.get("needs_confirmation") for r in records if r.get("needs_confirmation")]
    counts = [u for u in unsure if isinstance(u, int)]
    out: dict[str, Any] = {"deleted": deleted}
    if counts or unsure:
        out["needs_confirmation"] = sum(counts) if counts else unsure[0]
    return out


def request_note(record: Mapping[str, Any] | None, asked: Sequence[str]) -> str | None:
    """The note for a forget request just handled: ``record`` is its outcome record
    (``deleted``, ``needs_confirmation``), ``asked`` the texts of the memories left for the
    user to confirm, best first. ``None``: no record (nothing was handled)."""
    if not isinstance(record, Mapping):
        return None
    deleted = int(record.get("deleted") or 0)
    unsure = record.get("needs_confirmation")
    done = (
        f"As the user asked, {_memories(deleted)} about what they named "
        f"{'was' if deleted == 1 else 'were'} deleted. "
        if deleted
        else ""
    )
    if asked:
        listed = "\n".join(f"{i}. {text}" for i, text in enumerate(asked, start=1))
        return (
            f"{_PREFIX}{done}The user asked you to forget something; "
            f"{'these other' if deleted else 'these'} stored memories may be what they mean, "
            f"but the match is not certain, so nothing {'more ' if deleted else ''}was deleted:\n"
            f"{listed}\n"
            "Show them to the user, numbered, and ask whether to delete them. A yes deletes "
            "them all, a reply naming numbers deletes those; any other answer keeps them."
        )
    if unsure and unsure not in ("vague", "unclear") and not deleted:
        return (
            f"{_PREFIX}The user asked you to forget something, but no stored memory matched it "
            "with certainty; nothing was deleted. Ask them which memory they mean."
        )
    if unsure in ("vague", "unclear"):
        return (
            f"{_PREFIX}The user asked you to forget something without saying what; nothing "
            "was deleted. Ask them which memory they mean."
        )
    if deleted:
        return f"{_PREFIX}{done}Tell them it is done."
    return (
        f"{_PREFIX}The user asked you to forget something, but no stored memory matched "
        "what they named; nothing was deleted. Tell them so."
    )


def answer_note(deleted: int, answer: bool | Sequence[int] | None) -> str | None:
    """The note for the user's answer to a pending question: a yes (or the numbers chosen)
    deleted ``deleted`` memories; a no kept them; ``None`` (the user spoke of something
    else): no note, the question is simply closed."""
    if answer is None:
        return None
    if answer is not False:
        return (
            f"{_PREFIX}The user confirmed: {_memories(deleted)} "
            f"{'was' if deleted == 1 else 'were'} deleted. Tell them it is done."
        )
    return f"{_PREFIX}The user chose to keep those memories; nothing was deleted."
