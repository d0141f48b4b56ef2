"""Updates said in the conversation: what the replacement inherits, whole names, people who
fill a slot, and the router's flag on preference sentences (issue 29)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from adk_memory_kit.routing import MemoryApplier
from adk_memory_kit.routing.edits.conversation_edits import (
    ConversationEdits,
    conversation_edit_handlers,
)
from adk_memory_kit.routing.edits.update_subject import (
    MAX_SUBJECT_KEYS,
    SubjectCheck,
    names_near,
    people_fill_slot,
    subject_keys,
)
from adk_memory_kit.routing.offline import LearnedExtractor
from adk_memory_kit.routing.rule import Candidate, MemoryHome, route
from tests.support.routing import make_context, store_facts, texts_of


def test_the_replacement_inherits_the_old_facts_subject_words_not_its_names():
    keys = subject_keys("I'm training for the Berlin marathon.", "I switched to triathlon now.")
    assert "training" in keys and "marathon" in keys
    assert "berlin" not in keys  # a name of the old fact is not carried
    # words the new fact holds, change words and people are not keys; the old tags come first
    keys = subject_keys("My sister coaches the chess club.", "I run the chess club now.", ["x"])
    assert keys[0] == "x" and "chess" not in keys and "sister" not in keys
    many = "I collect stamps coins badges tickets maps posters flags shells"
    assert len(subject_keys(many, "Nothing else.")) == MAX_SUBJECT_KEYS


def test_whom_the_old_fact_is_about_stays_a_key_when_the_new_one_names_them():
    # "Where does my wife work?" still finds the fact that replaced the old one
    old = "My wife Nadia teaches at Hillcrest."
    keys = subject_keys(old, "nadia left hillcrest, she tutors now")
    assert "wife" in keys
    # ... not when the new fact is someone else's, or names no one the old one named
    keys = subject_keys("My wife Nadia teaches at Hillcrest.", "Nadia and my son moved to Leeds.")
    assert "wife" not in keys
    assert "wife" not in subject_keys("My wife teaches at Hillcrest.", "I teach there now.")


@pytest.mark.parametrize(
    ("old", "new", "kept", "not_kept"),
    [
        ("My rent is 1450 a month.", "The rent went up.", {"month"}, {"1450"}),
        ("My locker code is 7Q4X9.", "Changed the locker code.", set(), {"7q4x9"}),
        ("Halifax is my bank.", "I switched to a new bank.", set(), {"halifax"}),
        ("My login is [REDACTED:email].", "New login today.", set(), {"redacted"}),
    ],
)
def test_the_retired_value_never_becomes_a_key_of_the_current_fact(old, new, kept, not_kept):
    """Values of the old fact (numbers, ids, a name as its first word, a redaction mark) are
    what the update retires: none is carried to the current fact as an index key."""
    keys = set(subject_keys(old, new))
    assert kept <= keys and not (keys & not_kept)


def test_a_name_the_slot_window_reaches_is_taken_whole():
    assert names_near("Our boat is an old Beneteau Oceanis.", "boat") == {
        "beneteau",
        "oceanis",
    }
    # a name that starts beyond the window is still too far
    assert names_near("My gym is the one by the Leeds office.", "gym") == set()


@pytest.mark.parametrize(
    ("new", "memory_text", "fills"),
    [
        ("My sister Rita is my emergency contact now.", "My emergency contact is my dad.", True),
        # someone else's slot: a possessive person owns it
        ("My wife's emergency contact is her sister.", "My emergency contact is my dad.", False),
        # the memory's person owns the slot, not fills it
        ("My sister is my emergency contact now.", "My dad's emergency contact is me.", False),
        # the new fact does not name the slot
        ("My sister Rita moved to Cork.", "My emergency contact is my dad.", False),
    ],
)
def test_people_who_fill_a_slot_do_not_block_its_update(new, memory_text, fills):
    assert people_fill_slot(new, memory_text) is fills


@pytest.mark.parametrize(
    ("new", "memory_text", "same"),
    [
        ("We part-exchanged the Corsa for a Yaris.", "Our car is a silver Vauxhall Corsa.", True),
        (
            "Put my partner Lou down as my emergency contact instead of Dan.",
            "My emergency contact is my brother Dan.",
            True,
        ),
        (
            "My husband's emergency contact is his mum.",
            "My emergency contact is my brother Dan.",
            False,
        ),
        # a two-word slot's generic second word does not tie two different slots
        ("My savings account number is 44120987 now.", "My phone number is 0161 555 0199.", False),
        ("My postal address is now PO Box 12.", "My email address is [REDACTED:email].", False),
        # ... but names the slot when the new fact opens none, or opens that one
        ("New number: 0161 555 0142.", "My phone number is 0161 555 0199.", True),
        # another kind of the slot's second word is another slot, even with a name shared ...
        (
            "I set up a joint account with Monzo for the bills.",
            "My business account is with Monzo.",
            False,
        ),
        # ... but a word that only ranks it names the same one
        (
            "Acme pulled out; my biggest customer is Brightway now.",
            "My main customer is Acme.",
            True,
        ),
        # someone brought in after the first clause is incidental
        (
            "Cracked my Kindle screen so I read on a Kobo now, my brother lent me his.",
            "My e-reader is a Kindle Paperwhite.",
            True,
        ),
        # a name after "-in-law" is that person's; an acronym is nobody's name
        ("Doreen died on Sunday.", "My mother-in-law Doreen is in a care home.", True),
        ("My mum's GP is Dr Okoro.", "My GP is Dr Lewis.", False),
        # a friend called a mate is still someone else; "too" adds
        ("My mate Rob just bought a Kawasaki.", "I ride a Kawasaki Z650.", False),
        ("Got a Nintendo Switch too, for the train.", "I play on a PS5.", False),
    ],
)
async def test_the_subject_check_on_whole_names_and_slot_fillers(embedder, new, memory_text, same):
    ((verdict, _),) = await SubjectCheck().same_subject(embedder, new, [memory_text])
    assert verdict is same


@pytest.mark.slow
async def test_a_question_the_old_fact_answered_finds_its_replacement(memory):
    """The new fact shares no word with the question; it inherits "reading" from the fact it
    replaces, so the question finds it; ``as_of`` before the update still finds the old."""
    app, user = "edits-keys", f"u-{uuid.uuid4().hex[:8]}"
    old = "I'm reading Anna Karenina at the moment."
    long_ago = datetime.now(timezone.utc) - timedelta(days=30)
    await store_facts(memory, app, user, [old], long_ago)
    await store_facts(memory, app, user, ["My brother lives in Galway."], long_ago)
    context = make_context(app=app, user=user, memory=memory)
    new = "Finished Anna Karenina; I've started Beloved now."
    outcome = await ConversationEdits().update(
        Candidate(text=new, needed_in_future_sessions=True, replaces_earlier=True), context
    )
    assert outcome is not None and outcome.detail.startswith("supersedes")
    question = "What is the user reading now?"
    found = await memory.search_memory(app_name=app, user_id=user, query=question)
    assert texts_of(found)[:1] == [new] and old not in texts_of(found)
    assert "reading" in (found.memories[0].custom_metadata or {}).get("tags", [])
    past = await memory.search(
        app_name=app, user_id=user, query=question, as_of=long_ago + timedelta(days=1)
    )
    assert old in texts_of(past) and new not in texts_of(past)


@pytest.mark.slow
async def test_a_preference_that_replaces_a_fact_also_supersedes_the_lasting_fact(memory):
    """A sentence the router files as a ``user:`` preference and flags as a change is saved
    as a preference and also retires the lasting fact said before (not left to compete); the
    same preference said plainly is not flagged."""
    # the preference is the language the user wants replies in ("I'm learning Greek" is a
    # lasting fact, not a wish to be answered in Greek)
    router = LearnedExtractor()
    (plain,) = await router.route_sentences([("Please answer me in Greek.", None)])
    assert [route(c) for c in plain.candidates] == [MemoryHome.USER_STATE]
    assert not plain.candidates[0].replaces_earlier
    app, user = "edits-pref", f"u-{uuid.uuid4().hex[:8]}"
    old, neighbour = "I want your answers in Italian.", "My son is learning French."
    long_ago = datetime.now(timezone.utc) - timedelta(days=60)
    for text in (old, neighbour):
        await store_facts(memory, app, user, [text], long_ago)
    context = make_context(app=app, user=user, memory=memory)
    new = "No more Italian, answer me in Greek now."
    (changed,) = await router.route_sentences([(new, None)])
    assert {route(c) for c in changed.candidates} == {MemoryHome.USER_STATE}
    assert all(c.replaces_earlier for c in changed.candidates)
    applier = MemoryApplier(**conversation_edit_handlers())
    outcomes = [await applier.apply_one(c, context) for c in changed.candidates]
    assert [o.home for o in outcomes] == [MemoryHome.USER_STATE]
    found = await memory.search_memory(
        app_name=app, user_id=user, query="Which language does the user want answers in now?"
    )
    assert old not in texts_of(found) and new in texts_of(found)
    left = await memory.search_memory(app_name=app, user_id=user, query=neighbour)
    assert neighbour in texts_of(left)


class _Recorder:
    """An update handler that records what it is given (and can fail on demand)."""

    def __init__(self, fail: bool = False) -> None:
        self.given: list[str] = []
        self.fail = fail

    async def __call__(self, candidate, context):
        self.given.append(candidate.text)
        if self.fail:
            raise RuntimeError("the store is down")
        return None


def _changed_preference(text: str, key: str, value: str) -> Candidate:
    """A ``user:`` preference the router flagged as replacing an earlier fact."""
    return Candidate(
        text=text,
        key=key,
        value=value,
        exact_value=True,
        about_user=True,
        needed_in_future_sessions=True,
        replaces_earlier=True,
    )


async def test_a_changed_health_preference_never_reaches_the_update_handler(memory):
    """Only the exact ``user:`` value of a health name is exempt from the health detector: the
    sentence of a changed allergy is not handed on, so it cannot become a replacement fact."""
    context = make_context(app="edits-health", user=f"u-{uuid.uuid4().hex[:8]}", memory=memory)
    handler = _Recorder()
    changed = _changed_preference(
        "Turns out I'm allergic to shellfish now, not peanuts; my doctor confirmed it.",
        "allergies",
        "shellfish",
    )
    outcome = await MemoryApplier(update_handler=handler).apply_one(changed, context)
    assert outcome.home is MemoryHome.USER_STATE and outcome.status == "stored"
    assert handler.given == []


async def test_a_saved_preference_stands_when_retiring_the_old_fact_fails(memory):
    context = make_context(app="edits-fail", user=f"u-{uuid.uuid4().hex[:8]}", memory=memory)
    handler = _Recorder(fail=True)
    changed = _changed_preference("I dropped Italian, I'm learning Greek now.", "language", "Greek")
    outcome = await MemoryApplier(update_handler=handler).apply_one(changed, context)
    assert handler.given == [changed.text]
    assert outcome.home is MemoryHome.USER_STATE and outcome.status == "stored"
