"""Issue 29, the forget handler on its own: what a request names, when it is too vague to act
on, and which memories a kind of detail reaches (real PostgreSQL and MiniLM)."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.core.markers import ASKED_TEXTS_KEY, FORGET_STATE_KEY, PENDING_FORGET_KEY
from adk_memory_kit.routing.edits.conversation_edits import ConversationEdits
from adk_memory_kit.routing.edits.forget_requests import (
    asks_to_forget,
    forget_subject,
    is_idiom,
    is_vague,
    keeps_what_it_says,
    subject_parts,
)
from adk_memory_kit.routing.edits.subject_words import possessor
from adk_memory_kit.routing.edits.update_subject import SubjectCheck
from adk_memory_kit.routing.rule import Candidate
from tests.support.routing import make_context


@pytest.mark.parametrize(
    ("request_text", "subject"),
    [
        ("Please erase the notes on my old flat.", "my old flat"),
        ("Could you delete everything related to my allotment?", "my allotment"),
        ("Forget where I park the van.", "where I park the van"),
    ],
)
def test_the_subject_is_the_request_without_its_verb_phrase(request_text, subject):
    assert forget_subject(request_text) == subject


@pytest.mark.parametrize(
    ("request_text", "subject"),
    [
        ("Delete my gym locker code, I've handed the key back.", "gym locker code"),
        ("Okay, forget the bit about my landlord; we sorted it out.", "my landlord"),
        ("Remove my old postcode but keep the new one.", "old postcode"),
    ],
)
def test_the_subject_ends_with_its_clause(request_text, subject):
    assert forget_subject(request_text) == subject


@pytest.mark.parametrize(
    ("text", "asks", "idiom"),
    [
        ("Please forget my locker code.", True, False),
        ("Right, delete the note about my landlord.", True, False),
        ("I forgot my umbrella on the train.", False, False),
        ("Don't forget to water the plants.", False, False),
        ("Forget it, I'll ring them tomorrow.", True, True),
        ("Forget that, we're staying in.", True, True),
        ("Forget about the ferry, we'll fly.", True, True),  # a change of plan
        ("Forget the notes about my ferry trip, I'm not going.", True, False),
        # a verb that also empties a plate or a pan must name the user's own thing
        ("Remove the olives from my salad.", False, False),
        ("Scrub the roasting tin first.", False, False),
        ("Drop me at the corner.", False, False),
        ("Never save my place if I'm running late.", False, False),
        ("Stop saving my photos to the shared drive.", False, False),
        ("Don't keep my brother waiting.", False, False),
        # the verbs that also take things, and a pronoun after a thing named
        ("Take out the recycling before you go.", False, False),
        ("Bin the old receipts.", False, False),
        ("Drop the thing at my mum's.", False, False),
        ("The soup, don't keep it warm.", False, False),
        ("My cousin's party, forget it, it's cancelled.", False, False),
        # ... chores, edits of a document, things handed over: the object is not held
        ("Can you cut my hair shorter next time?", False, False),
        ("Chuck my keys over here, would you?", False, False),
        ("Strike my name off the volunteer list.", False, False),
        ("Cut the bit about my childhood from the wedding speech.", False, False),
        ("Take out the part about pricing from the slide deck.", False, False),
        ("Cut the bit of fat off the steak.", False, False),
        ("Clear my schedule on Friday and send the details to Tom.", False, False),
        ("The leftover rice, bin it.", False, False),
        ("That seat, don't save it.", False, False),
        ("Could you not keep my spare key under the mat?", False, False),
        ("I'd like my wisdom teeth removed before the summer.", False, False),
        ("I don't want my coffee kept warm.", False, False),
        # a detail of the user's is not a change of plan
        ("Forget the bit about the party, I was drunk.", True, False),
        ("Forget the name of my son's nursery, I overshared.", True, False),
        # a request that ends its own sentence is not a change of plan
        ("Forget the Oslo job idea please. It isn't happening anyway.", True, False),
        ("Forget it. I'll ring them myself.", True, True),
    ],
)
def test_only_a_sentence_opening_with_a_deletion_verb_asks_to_forget(text, asks, idiom):
    assert asks_to_forget(text) is asks
    assert is_idiom(text) is idiom


@pytest.mark.parametrize(
    ("request_text", "subject"),
    [
        ("Please stop remembering my locker number.", "locker number"),
        ("Can you stop keeping track of my blood pressure?", "blood pressure"),
        ("Don't store anything about my tax return.", "my tax return"),
        ("I don't want you to know about my overdraft anymore.", "overdraft"),
        ("I'd rather you didn't keep my old postcode.", "old postcode"),
        ("We no longer want you to have our landline number.", "our landline number"),
        ("You don't need to remember where my gran lives.", "where my gran lives"),
        ("Never save my security answers, thanks.", "security answers"),
        ("I'd like my old number gone.", "my old number"),
        ("I no longer need you to store my email.", "email"),
        ("Please, scrap what I said about my overtime.", "my overtime"),
        ("Clear my seat preference.", "seat preference"),
        ("I don’t want my gym times stored any more.", "my gym times"),
        ("Don’t forget to delete my Hotmail address.", "Hotmail address"),
        ("Make sure you forget my old job.", "old job"),
        ("I'd rather you forgot about my ex.", "ex"),
        # other verbs, with what the assistant holds or the user's own thing as the object
        ("Could you chuck my old number?", "old number"),
        ("Can u ditch the info about my overdraft pls", "my overdraft"),
        ("Take out the part about my sister's wedding.", "my sister's wedding"),
        ("Could you not remember my gym code?", "gym code"),
        ("Please bin my old postcode from your memory, thanks", "old postcode"),
        # the thing named first, the request after it with a pronoun
        ("My old work address, please don't keep that.", "My old work address"),
        ("the bit about my landlord - can you take that out of your memory?", "my landlord"),
        ("The stuff about the audition, delete it please.", "the audition"),
        ("My old passport number, delete it.", "My old passport number"),
        ("My work address, please don't remember that.", "My work address"),
        (
            "the surprise party for Dom, please don't keep that, it's a secret",
            "the surprise party for Dom",
        ),
        ("I'd like the details about my loan deleted.", "my loan"),
        ("I want my allergies removed from your memory.", "my allergies"),
        # the telling is not the subject: what was told is
        ("Scrap the part where I told you my landlord is suing me.", "my landlord is suing me"),
        ("pls forget i told u my car got clamped", "my car got clamped"),
        ("Erase that I mentioned my overdraft.", "my overdraft"),
        ("forget how I said my uncle gambles lol", "my uncle gambles"),
        ("Don't keep the bit where I said my neighbour is a creep.", "my neighbour is a creep"),
        ("i dont want u remembering my shoe size", "shoe size"),
        ("pls forget wat i said about my overdraft", "my overdraft"),
        ("Forget I ever mentioned my stepdad.", "my stepdad"),
        ("Forget I said anything about the tribunal.", "the tribunal"),
        ("forget abt my tattoo", "my tattoo"),
        # a person's possessive typed without its apostrophe
        ("pls delete my dads mobile number", "dad's mobile number"),
        ("Forget that my daughters school is St Mary's.", "my daughter's school is St Mary's"),
        # a deletion verb on what the assistant holds; an opener that hails the assistant
        ("Could you scrap that note about my overdraft?", "my overdraft"),
        ("oi delete my old postcode", "old postcode"),
        ("mate, can you wipe my student loan details", "student loan details"),
        # a regret that it was told
        ("I regret telling you about my arrest.", "arrest"),
        ("I shouldn't have told you where my brother lives", "where my brother lives"),
        # a clause after the subject, as a learner of English may write it
        ("please forget my wife phone number, is private", "wife phone number"),
    ],
)
def test_a_wish_not_to_be_remembered_is_a_request_naming_its_subject(request_text, subject):
    assert asks_to_forget(request_text)
    assert forget_subject(request_text) == subject


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Don't forget my dentist appointment is on the 4th.", True),
        ("Remember that I'm coeliac.", True),
        ("I forgot my charger at the Bristol office.", True),
        ("My old number can go now.", False),  # a wish the parser does not read: not kept
        ("I always forget my umbrella.", True),  # the user's own doing
        ("I delete my browser history every Sunday.", True),
        ("I just want to forget my divorce.", False),  # a wish: not kept, asked
        ("Bin the Bristol stuff, would you?", False),
        ("i dont want u keeping my dinner warm if im late", False),  # a thing, not memory
        ("I regret telling my boss about the move.", True),  # told someone else
        ("I regret the tattoo on my arm.", True),
    ],
)
def test_a_sentence_taken_for_a_request_that_asks_for_none_is_kept(text, kept):
    assert not asks_to_forget(text)
    assert keeps_what_it_says(text) is kept


@pytest.mark.parametrize(
    ("subject", "parts"),
    [
        ("my gym, my work and my address", ["my gym", "my work", "my address"]),
        ("my address and my phone number", ["my address", "my phone number"]),
        ("my salt and pepper grinder", ["my salt and pepper grinder"]),
        ("my mum and dad's address", ["my mum and dad's address"]),
    ],
)
def test_a_subject_listing_things_is_split_into_them(subject, parts):
    assert subject_parts(subject) == parts


@pytest.mark.parametrize(
    ("request_text", "vague"),
    [
        ("Forget that.", True),
        ("Please scrap what I said a minute ago.", True),
        ("Delete all of it.", True),
        ("Forget my sister's wedding plans.", False),
        ("Remove my postcode.", False),
        # words that name nothing in "what I gave you, pls"; "savings" and "shares" name things
        ("Please forget what I gave you earlier, thanks.", True),
        ("Forget my savings.", False),
        ("Delete my shares, pls.", False),
    ],
)
def test_a_request_naming_nothing_is_vague(request_text, vague):
    assert is_vague(forget_subject(request_text)) is vague


@pytest.mark.parametrize(
    ("request_text", "whose"),
    [
        ("Please forget my wife's phone number.", "wife"),
        ("Delete the kids' school.", "kids"),
        ("Forget my phone number.", None),
        ("Forget what's on my mind.", None),
    ],
)
def test_the_possessor_of_someone_elses_detail_is_found(request_text, whose):
    assert possessor(forget_subject(request_text)) == whose


def test_a_weak_best_match_with_a_close_runner_up_is_not_guessed_at():
    edits = ConversationEdits()
    assert edits.chooser.choose([("a", 0.40), ("b", 0.37)]) == ([], 2)
    assert edits.chooser.choose([("a", 0.70), ("b", 0.50)]) == (["a"], 0)
    assert edits.chooser.choose([("a", 0.70), ("b", 0.66)]) == (["a", "b"], 0)  # copies go together
    assert edits.chooser.choose([("a", 0.2)]) == ([], 0)


def test_the_decision_takes_only_memories_that_match_on_their_own_or_asks():
    edits = ConversationEdits()
    mine, ours, other = (_entry(t) for t in ("I was born in 1980.", "Our cat is 3.", "Hi."))
    # one memory matches on its own: it goes, a weaker one that does not stays
    assert edits.chooser.decide("my birth year", [(mine, 0.62, True), (ours, 0.5, False)]) == (
        [mine],
        0,
    )
    # none matches on its own: the weak ones are asked about, nothing goes
    assert edits.chooser.decide("my birth year", [(mine, 0.4, False), (ours, 0.35, False)]) == (
        [],
        2,
    )
    # below the floor: neither deleted nor asked
    assert edits.chooser.decide("my birth year", [(other, 0.1, False)]) == ([], 0)
    # two match on their own, one far closer: it goes, the other is asked about, never
    # kept without a word
    gym, work = (_entry(t) for t in ("My gym locker code is 4471.", "My work locker code is 8822."))
    assert edits.chooser.decide("the locker code", [(gym, 0.7, True), (work, 0.55, True)]) == (
        [gym],
        1,
    )


@pytest.mark.slow
async def test_the_assessment_is_aligned_with_the_texts_and_spares_someone_elses_detail(embedder):
    texts = ["You can reach me on 07700 900123.", "My sister's number is 07700 900456."]
    seen = await ConversationEdits().assessor.assess(embedder, "my phone number", texts)
    assert len(seen.cosines) == len(seen.own) == len(seen.about_others) == 2
    assert seen.names_kind  # "phone number" is a kind of detail
    assert list(seen.own) == [True, False]
    assert list(seen.about_others) == [False, True]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("subject", "other", "same"),
    [
        # the name the subject gives is missing: another of its kind
        ("my Strava account", "My Garmin account is under my work email.", None),
        # an identifier: a memory about the thing but not its number is not it
        ("my library card number", "My library card expires in June.", None),
        ("my library card number", "My library card number is 2210 4471.", True),
        ("my landlord's name", "My landlord is very slow with repairs.", None),
        ("my landlord's name", "My landlord is called Mr Dunmore.", True),
    ],
)
async def test_a_memory_lacking_the_subjects_name_or_identifier_is_not_taken_on_its_own(
    embedder, subject, other, same
):
    seen = await ConversationEdits().assessor.assess(embedder, subject, [other])
    assert bool(seen.own[0]) is bool(same)


@pytest.mark.parametrize(
    ("request_text", "texts", "own"),
    [
        # two attributes, two kinds; a thing that weighs something is not the user
        (
            "Forget my weight.",
            ["I'm five foot ten.", "My rucksack weighs 12 kilos.", "I weigh 80 kilos."],
            [False, False, True],
        ),
        ("Forget my height.", ["I weigh 60 kilos.", "I'm five foot two."], [False, True]),
        # another of the user's things of that kind is never taken on its own (asked at most)
        (
            "Forget my address.",
            ["My office address is 4 Mill Road.", "I live at 9 Elm Grove."],
            [False, True],
        ),
        # someone called only by name may be anyone: not the daughter on its own
        (
            "Forget my daughter's asthma.",
            [
                "Callum was diagnosed with asthma last year.",
                "My daughter has had asthma since she was four.",
            ],
            [False, True],
        ),
        # "date" held by a date
        ("Forget my hearing date.", ["I have a hearing at the tribunal on 3 March."], [True]),
        # a word that only qualifies the very thing named is not another owner ...
        (
            "Delete the alarm code I gave you.",
            ["My shop alarm code is 5512.", "My shop is on Bridge Street."],
            [True, False],
        ),
        # ... but a word naming someone, with or without its apostrophe, is whose it is
        (
            "Delete the alarm code I gave you.",
            [
                "My uncles alarm code is 7070.",
                "My boss alarm code is 3131.",
                "My work mate's alarm code is 1001.",
                "My in-laws alarm code is 2468.",
            ],
            [False, False, False, False],
        ),
        # ... nor is someone the user names with "and I": the user's own too, unless the
        # detail is theirs
        (
            "Forget my mortgage.",
            ["My brother and I went through his mortgage offer."],
            [False],
        ),
        (
            "Forget my mortgage.",
            [
                "My wife and I took out our mortgage with Halifax.",
                "My wife's mortgage is paid off.",
            ],
            [True, False],
        ),
        # someone's name as the possessor: the name alone does not make a memory their detail
        (
            "Forget Hannah's pregnancy.",
            ["Hannah is a paediatric nurse.", "My friend Hannah is expecting twins in March."],
            [False, True],
        ),
        # one naming word held by a memory about something else ("bank holiday") is not
        # enough on its own
        (
            "Forget my bank details.",
            ["My bank holiday weekend is going to be spent in Whitby.", "I bank with Monzo."],
            [False, True],
        ),
        # a child hoped for is nobody yet: not a person the memory must name
        (
            "Forget that I'm trying for a baby.",
            ["My wife and I have been trying for a baby since June."],
            [True],
        ),
    ],
)
async def test_what_a_memory_says_of_the_subject_decides_a_match(
    embedder, request_text, texts, own
):
    assessed = await ConversationEdits().assessor.assess(
        embedder, forget_subject(request_text), texts
    )
    assert assessed.own.tolist() == own


@pytest.mark.slow
async def test_a_name_alone_does_not_make_a_memory_the_subject(embedder):
    edits = ConversationEdits()
    texts = ["Marta and I broke up last winter.", "Marta from the bakery is retiring."]
    seen = await edits.assessor.assess(embedder, "my ex-girlfriend Marta", texts)
    assert await edits.assessor.name_led(embedder, "my ex-girlfriend Marta", texts) == [False, True]
    assert not seen.own[1]  # shares only the name
    assert seen.own[0]


async def _store(memory, app: str, user: str, texts: list[str]) -> None:
    for text in texts:
        entry = MemoryEntry(
            author="user",
            timestamp=datetime.now(timezone.utc).isoformat(),
            content=types.Content(role="user", parts=[types.Part(text=text)]),
            custom_metadata={"kind": "fact", "source": "routing"},
        )
        await memory.add_memory(app_name=app, user_id=user, memories=[entry])


async def _left(memory, app: str, user: str, queries: list[str]) -> set[str]:
    out: set[str] = set()
    for query in queries:
        found = await memory.search_memory(app_name=app, user_id=user, query=query)
        out.update(" ".join(p.text or "" for p in m.content.parts) for m in found.memories)
    return out


@pytest.mark.slow
async def test_a_kind_of_detail_reaches_the_memory_that_states_it_and_only_it(memory):
    app, user = "edits-kind", f"u-{uuid.uuid4().hex[:8]}"
    target = "Our house is at 63 Larch Avenue, Swindon."
    others = ["My dentist is Dr. Shah.", "I go bouldering on Thursdays."]
    await _store(memory, app, user, [target, *others])
    context = make_context(app=app, user=user, memory=memory)
    request = "Please forget my home address."
    outcome = await ConversationEdits().forget(
        Candidate(text=request, forget_request=True), context
    )
    assert outcome.status == "forgotten"
    assert context.state[FORGET_STATE_KEY]["deleted"] == 1
    left = await _left(memory, app, user, [target, *others, request])
    assert target not in left and set(others) <= left


@pytest.mark.slow
@pytest.mark.parametrize(
    "said",
    [
        "I forgot my reading glasses at the Lisbon hotel.",  # no deletion asked for
        "Forget it, I'll sort the Lisbon hotel out myself.",  # "never mind"
        "Forget the hotel, just book an Airbnb in Lisbon instead.",  # a change of plan
    ],
)
async def test_a_sentence_taken_for_a_request_deletes_nothing(memory, said):
    app, user = "edits-misrouted", f"u-{uuid.uuid4().hex[:8]}"
    held = ["The hotel in Lisbon had a rooftop pool.", "I always book hotels near the station."]
    await _store(memory, app, user, held)
    context = make_context(app=app, user=user, memory=memory)
    context.state["user:pref_home_airport"] = "LIS"
    outcome = await ConversationEdits().forget(Candidate(text=said, forget_request=True), context)
    assert outcome.status == "skipped"
    assert FORGET_STATE_KEY not in context.state.to_dict()
    assert context.state["user:pref_home_airport"] == "LIS"
    assert set(held) <= await _left(memory, app, user, held)


@pytest.mark.slow
async def test_a_request_reaches_the_working_memory_and_its_view(memory):
    app, user = "edits-wm", f"u-{uuid.uuid4().hex[:8]}"
    written = "2026-11-30T09:00:00+00:00"
    pad = {
        "v": 2,
        "goal": "Plan the Porto weekend",
        "facts": [
            {"name": "bike_lock_code", "value": "3391", "source": "user", "written_at": written},
            {"name": "hotel", "value": "Casa do Rio", "source": "user", "written_at": written},
            {"name": "locker_code", "value": "0042", "source": "user", "written_at": written},
            {"name": "booking_code", "value": "QX7", "source": "user", "written_at": written},
        ],
    }
    context = make_context(app=app, user=user, memory=memory, state={"wm": pad})
    outcome = await ConversationEdits().forget(
        Candidate(text="Please forget my bike lock code.", forget_request=True), context
    )
    assert outcome.status == "forgotten"
    record = context.state[FORGET_STATE_KEY]
    assert record["deleted"] == 1 and "working_memory" in record["homes"]
    names = {f["name"] for f in context.state["wm"]["facts"]}
    assert names == {"hotel", "locker_code", "booking_code"}  # "code" alone names nothing
    view = context.state["wm_view"]
    assert "3391" not in view and "Casa do Rio" in view and "Porto" in view


@pytest.mark.slow
async def test_a_request_in_words_the_handler_cannot_read_asks_and_keeps_everything(memory):
    app, user = "edits-unclear", f"u-{uuid.uuid4().hex[:8]}"
    held = ["The hotel in Lisbon had a rooftop pool."]
    await _store(memory, app, user, held)
    context = make_context(app=app, user=user, memory=memory)
    said = "Could you chuck the Lisbon hotel thing?"
    outcome = await ConversationEdits().forget(Candidate(text=said, forget_request=True), context)
    assert outcome.status == "skipped"
    # not read: nothing deleted; the memory closest to the whole sentence is shown to confirm
    assert context.state[FORGET_STATE_KEY]["needs_confirmation"] == 1
    assert context.state[FORGET_STATE_KEY]["deleted"] == 0
    assert len(context.state[PENDING_FORGET_KEY]["ids"]) == 1
    assert set(held) <= await _left(memory, app, user, held + [said])
    # a request close to nothing stored is only "unclear": nothing shown
    other = make_context(app=app, user=user, memory=memory)
    said = "Could you chuck the thing with the quarterly VAT return?"
    await ConversationEdits().forget(Candidate(text=said, forget_request=True), other)
    assert other.state[FORGET_STATE_KEY]["needs_confirmation"] == "unclear"
    assert not other.state.get(PENDING_FORGET_KEY)


@pytest.mark.slow
async def test_a_request_listing_several_things_deletes_each(memory):
    app, user = "edits-list", f"u-{uuid.uuid4().hex[:8]}"
    named = [
        "My gym is the Iron Works on Mill Street.",
        "I work as a surveyor at Halden Partners.",
        "My home address is 14 Rowan Close, York.",
    ]
    neighbour = "My sister works as a nurse in Hull."
    await _store(memory, app, user, [*named, neighbour])
    context = make_context(app=app, user=user, memory=memory)
    said = "Please stop remembering my gym, my work and my home address."
    outcome = await ConversationEdits().forget(Candidate(text=said, forget_request=True), context)
    assert outcome.status == "forgotten"
    left = await _left(memory, app, user, [*named, neighbour])
    assert not set(named) & left
    assert neighbour in left


@pytest.mark.slow
async def test_someone_elses_detail_never_clears_the_users_own_preference(memory):
    app, user = "edits-theirs", f"u-{uuid.uuid4().hex[:8]}"
    context = make_context(app=app, user=user, memory=memory)
    context.state["user:pref_allergies"] = "sesame"
    said = "Forget my husband's allergy."
    await ConversationEdits().forget(Candidate(text=said, forget_request=True), context)
    assert context.state["user:pref_allergies"] == "sesame"


@pytest.mark.slow
async def test_of_two_memories_of_a_kind_the_one_the_request_qualifies_goes(memory):
    app, user = "edits-qualified", f"u-{uuid.uuid4().hex[:8]}"
    work, home = "My work email is j.okoro@halden.co.uk.", "My personal email is jo@mailbox.org."
    await _store(memory, app, user, [work, home])
    context = make_context(app=app, user=user, memory=memory)
    said = "Delete my work email."
    await ConversationEdits().forget(Candidate(text=said, forget_request=True), context)
    left = await _left(memory, app, user, [work, home, "email"])
    assert work not in left and home in left
    assert context.state[FORGET_STATE_KEY]["needs_confirmation"] == 1  # the other is asked


@pytest.mark.slow
async def test_a_request_reaches_a_session_fact_under_its_own_key(memory):
    app, user = "edits-session-fact", f"u-{uuid.uuid4().hex[:8]}"
    facts = {"fact_trip_destination": "Lima", "fact_party_size": "4"}
    context = make_context(app=app, user=user, memory=memory, state=dict(facts))
    outcome = await ConversationEdits().forget(
        Candidate(text="Stop remembering my trip to Lima.", forget_request=True), context
    )
    assert outcome.status == "forgotten"
    assert context.state["fact_trip_destination"] is None
    assert context.state["fact_party_size"] == "4"  # names nothing of the request
    assert "session_state" in context.state[FORGET_STATE_KEY]["homes"]


@pytest.mark.slow
async def test_a_vague_request_deletes_nothing_and_asks(memory):
    app, user = "edits-vague", f"u-{uuid.uuid4().hex[:8]}"
    held = ["I lent my drill to Omar.", "My sister is getting married in May."]
    await _store(memory, app, user, held)
    context = make_context(app=app, user=user, memory=memory)
    outcome = await ConversationEdits().forget(
        Candidate(text="Forget what I just said.", forget_request=True), context
    )
    assert outcome.status == "skipped"
    assert context.state[FORGET_STATE_KEY]["deleted"] == 0
    assert context.state[FORGET_STATE_KEY]["needs_confirmation"] == "vague"
    assert set(held) <= await _left(memory, app, user, held)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("request_text", "neighbour"),
    [
        # shares "piano" with the subject, but is about someone else
        ("Forget about my piano lessons.", "My cousin teaches piano in Vienna."),
        # shares "sister", never says what the request names
        ("Please delete what you know about my sister's divorce.", "My sister runs a bakery."),
    ],
)
async def test_a_request_for_something_never_stored_leaves_its_closest_neighbour(
    memory, request_text, neighbour
):
    app, user = "edits-absent", f"u-{uuid.uuid4().hex[:8]}"
    held = [neighbour, "I cycle to work most days."]
    await _store(memory, app, user, held)
    context = make_context(app=app, user=user, memory=memory)
    outcome = await ConversationEdits().forget(
        Candidate(text=request_text, forget_request=True), context
    )
    assert context.state[FORGET_STATE_KEY]["deleted"] == 0
    assert outcome.status == "skipped"
    assert context.state[FORGET_STATE_KEY]["needs_confirmation"] >= 1
    assert set(held) <= await _left(memory, app, user, held)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("request_text", "target", "other_person"),
    [
        # MiniLM puts "my ex-husband" closer to the current husband than to the ex
        (
            "Delete what you know about my ex-husband.",
            "My ex-husband Dev lives in Leeds.",
            "My current husband is called Joe.",
        ),
        (
            "Please delete my mother-in-law.",
            "My mother-in-law visits every Sunday.",
            "My mother visits in the summer.",
        ),
        (
            "Remove what you know about my wife's job.",
            "My wife is a vet.",
            "My ex-wife was a lawyer.",
        ),
    ],
)
async def test_a_request_about_one_person_spares_another_named_by_the_same_word(
    memory, request_text, target, other_person
):
    app, user = "edits-qualified", f"u-{uuid.uuid4().hex[:8]}"
    await _store(memory, app, user, [target, other_person, "I cycle to work most days."])
    context = make_context(app=app, user=user, memory=memory)
    await ConversationEdits().forget(Candidate(text=request_text, forget_request=True), context)
    left = await _left(memory, app, user, [target, other_person])
    assert target not in left
    assert other_person in left
    # the target never stored: the other person's memory is not taken in its place
    other_user = f"u-{uuid.uuid4().hex[:8]}"
    await _store(memory, app, other_user, [other_person, "My brother collects stamps."])
    context = make_context(app=app, user=other_user, memory=memory)
    await ConversationEdits().forget(Candidate(text=request_text, forget_request=True), context)
    assert context.state[FORGET_STATE_KEY]["deleted"] == 0
    assert {other_person, "My brother collects stamps."} <= await _left(
        memory, app, other_user, [other_person, "My brother collects stamps."]
    )


@pytest.mark.slow
async def test_a_bare_word_that_may_predate_a_break_up_is_asked_about_not_deleted(memory):
    # "My partner ..." may be the ex, told before the break-up, or the current partner
    app, user = "edits-unsure", f"u-{uuid.uuid4().hex[:8]}"
    held = ["My partner plays bass in a covers band.", "I cycle to work most days."]
    await _store(memory, app, user, held)
    context = make_context(app=app, user=user, memory=memory)
    request = Candidate(text="Forget my ex-partner's band.", forget_request=True)
    await ConversationEdits().forget(request, context)
    assert context.state[FORGET_STATE_KEY]["deleted"] == 0
    assert context.state[FORGET_STATE_KEY]["needs_confirmation"] >= 1
    assert set(held) <= await _left(memory, app, user, held)


@pytest.mark.slow
async def test_a_memory_saying_the_relationship_ended_is_the_ex(memory):
    app, user = "edits-ended", f"u-{uuid.uuid4().hex[:8]}"
    target = "My husband Karl and I divorced in 2019."
    held = [target, "I cycle to work most days."]
    await _store(memory, app, user, held)
    context = make_context(app=app, user=user, memory=memory)
    request = Candidate(text="Please forget my ex-husband.", forget_request=True)
    await ConversationEdits().forget(request, context)
    assert await _left(memory, app, user, held) == {"I cycle to work most days."}


@pytest.mark.slow
async def test_someone_elses_detail_goes_and_the_users_own_of_that_kind_stays(memory):
    app, user = "edits-owner", f"u-{uuid.uuid4().hex[:8]}"
    target = "My brother's mobile is 07700 900777."
    others = ["My number is 07700 900888.", "My brother is a plumber in Hull."]
    await _store(memory, app, user, [target, *others])
    context = make_context(app=app, user=user, memory=memory)
    request = "Please forget my brother's phone number."
    outcome = await ConversationEdits().forget(
        Candidate(text=request, forget_request=True), context
    )
    assert outcome.status == "forgotten"
    assert context.state[FORGET_STATE_KEY]["deleted"] == 1
    left = await _left(memory, app, user, [target, *others, request])
    assert target not in left and set(others) <= left


def _entry(text: str) -> MemoryEntry:
    return MemoryEntry(
        author="user", content=types.Content(role="user", parts=[types.Part(text=text)])
    )


def test_an_ambiguous_match_is_settled_only_by_the_people_the_request_names():
    edits = ConversationEdits()
    ours = _entry("Our daughter takes the bus to Northgate High.")
    mine = _entry("I took the bus to school every day.")
    scored = [(mine, 0.40), (ours, 0.38)]
    assert edits.chooser.choose(scored) == ([], 2)  # weak and close: ambiguous on scores alone
    assert edits.chooser.same_people("where my daughter goes to school", scored) == [ours]
    # a subject naming no one, or matches all about those people, stay a question
    assert edits.chooser.same_people("where I went to school", scored) == []
    theirs = _entry("Our daughter loves the school bus.")
    assert edits.chooser.same_people("my daughter's school", [(ours, 0.4), (theirs, 0.38)]) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    ("request_text", "target", "neighbour"),
    [
        # one word of a kind's label ("age"), far from the label as a whole
        ("Please delete my age.", "I turned 38 in March.", "My flat is on the third floor."),
        # an illness named without any health word (reached through the kind's examples)
        (
            "Please forget my diagnosis.",
            "The specialist confirmed I have Crohn's disease.",
            "My sister trains nurses in Leeds.",
        ),
        # a subject narrower than its kind: the salary goes, the rent (also money) stays
        (
            "Remove my salary.",
            "I'm paid 3,100 a month after tax.",
            "I pay 900 a month for my flat.",
        ),
    ],
)
async def test_a_term_of_a_kind_reaches_its_detail_and_spares_the_kinds_others(
    memory, request_text, target, neighbour
):
    app, user = "edits-term", f"u-{uuid.uuid4().hex[:8]}"
    others = [neighbour, "I go bouldering on Thursdays."]
    await _store(memory, app, user, [target, *others])
    context = make_context(app=app, user=user, memory=memory)
    outcome = await ConversationEdits().forget(
        Candidate(text=request_text, forget_request=True), context
    )
    assert outcome.status == "forgotten"
    assert context.state[FORGET_STATE_KEY]["deleted"] == 1
    left = await _left(memory, app, user, [target, *others, request_text])
    assert target not in left and set(others) <= left


# --- updates: an update about X never supersedes a memory about Y ---------------------------


@pytest.mark.parametrize(
    ("new", "memory_text", "same"),
    [
        # the same subject, said in other words
        ("I changed dentists, I'm with Dr. Amin now.", "My dentist is Dr. Hale.", True),
        ("Rolo passed away in June.", "Our beagle Rolo is nine.", True),
        ("My mum moved to Perth last year.", "My mother lives in Derby.", True),
        # where the user lives, said as a move: two place names, no shared word
        ("We moved into a flat in Hove last month.", "I live in Brighton.", True),
        ("We moved the piano upstairs.", "We live in a cottage in Kent.", False),
        # a capitalised word after a person is not their name: a language, a place
        ("I gave up Welsh, I'm learning Dutch now.", "My husband speaks fluent Welsh.", False),
        ("I was 19 when I moved to Glasgow.", "I was arrested at 19 for shoplifting.", False),
        ("I moved over to a new bank.", "I live in Brighton.", False),
        ("I relocated to the Leeds office.", "I live in Brighton.", False),
        # the slot the new fact opens inside its sentence ("... and my last name is ...")
        ("We married in May and my surname is now Duarte.", "My middle name is Rose.", False),
        ("We married in May and my surname is now Duarte.", "My surname is Wong.", True),
        # a "my X" in a side clause is not the slot the new fact fills
        (
            "New number since my contract ended: 07700 900222.",
            "My phone number is 07700 900111.",
            True,
        ),
        # someone else's detail: another person
        ("I moved to Glasgow in the spring.", "My sister lives in Edinburgh.", False),
        ("My husband drives a Kia now.", "I drive an old Saab.", False),
        ("I changed dentists, I'm with Dr. Amin now.", "My son's dentist is Dr. Hale.", False),
        # another slot of the user's, sharing only a place or a title
        ("I'm a welder in Hull these days.", "My accountant is Mr Cole in Hull.", False),
        # a fact that adds to what the user has replaces nothing
        ("We also adopted a kitten.", "We have a beagle called Rolo.", False),
        # the same word for two people: "my ex-husband" is not "my husband"
        ("My ex-husband moved to Leeds.", "My new husband lives with me in York.", False),
        ("My mother-in-law retired last month.", "My mother works at the library.", False),
    ],
)
async def test_an_update_matches_only_a_memory_about_its_subject(embedder, new, memory_text, same):
    ((verdict, _),) = await SubjectCheck().same_subject(embedder, new, [memory_text])
    assert verdict is same


async def _current(memory, app: str, user: str, texts: list[str]) -> set[str]:
    return await _left(memory, app, user, texts) & set(texts)


@pytest.mark.slow
async def test_an_update_supersedes_the_memory_about_its_subject_and_nothing_else(memory):
    app, user = "edits-update", f"u-{uuid.uuid4().hex[:8]}"
    old = "My barber is Kemal on Mill Lane."
    others = ["My brother's barber is on the high street.", "I play the oboe in a quartet."]
    await _store(memory, app, user, [old, *others])
    context = make_context(app=app, user=user, memory=memory)
    new = "I've switched barbers, I go to Dario now."
    outcome = await ConversationEdits().update(
        Candidate(text=new, needed_in_future_sessions=True, replaces_earlier=True), context
    )
    assert outcome is not None and outcome.detail.startswith("supersedes")
    current = await _current(memory, app, user, [old, new, *others])
    assert current == {new, *others}


@pytest.mark.slow
async def test_the_users_own_update_replaces_the_users_memory_not_a_persons_it_mentions(memory):
    app, user = "edits-update", f"u-{uuid.uuid4().hex[:8]}"
    mine, theirs = "I have a Samsung A12 phone.", "My brother has a Samsung S22 phone."
    await _store(memory, app, user, [mine, theirs])
    context = make_context(app=app, user=user, memory=memory)
    new = "I've moved to a Samsung S24 phone, my brother talked me into it."
    outcome = await ConversationEdits().update(
        Candidate(text=new, needed_in_future_sessions=True, replaces_earlier=True), context
    )
    assert outcome is not None and outcome.detail.startswith("supersedes")
    assert await _current(memory, app, user, [mine, theirs, new]) == {theirs, new}


@pytest.mark.slow
async def test_a_plain_fact_wrongly_flagged_as_an_update_supersedes_nothing(memory):
    """The safety property: the handler gets a fact flagged ``replaces_earlier`` that is about
    something the user never said before; every related-looking memory stays current."""
    app, user = "edits-false-flag", f"u-{uuid.uuid4().hex[:8]}"
    held = [
        "My wife works at the council.",  # the same kind of detail, someone else's
        "I learn German on Tuesday evenings.",  # close in meaning, another subject
        "My dentist is Dr. Moss in Stockport.",  # shares only the town
    ]
    await _store(memory, app, user, held)
    context = make_context(app=app, user=user, memory=memory)
    for plain in (
        "I work at a print shop in Stockport.",
        "I also take salsa classes on Thursdays.",
    ):
        outcome = await ConversationEdits().update(
            Candidate(text=plain, needed_in_future_sessions=True, replaces_earlier=True),
            context,
        )
        # nothing about its subject: stored as usual by the applier, or beside the closest
        # memory with a read-time link (which hides nothing)
        assert outcome is None or outcome.detail.startswith("may update"), outcome
    assert await _current(memory, app, user, held) == set(held)


@pytest.mark.parametrize(
    ("request_text", "gone"),
    [
        ("Please forget my old phone number.", {"phone_number"}),
        ("Forget my flight details.", {"flight_number"}),
        ("Forget my sister's name.", set()),  # "name" alone names nothing
        ("Delete my number.", set()),
    ],
)
def test_working_memory_facts_go_only_when_named(request_text, gone):
    from adk_memory_kit.routing.edits.forget_requests import VAGUE_WORDS
    from adk_memory_kit.routing.edits.subject_words import GENERIC as _GENERIC
    from adk_memory_kit.routing.edits.working_memory_forget import forget_in_working_memory
    from adk_memory_kit.text.signals import content_stems

    written = "2026-11-30T09:00:00+00:00"
    names = ["phone_number", "flight_number", "room_number", "hotel_name", "contact_name"]
    facts = [{"name": n, "value": "x1", "source": "user", "written_at": written} for n in names]
    state = {"wm": {"v": 2, "goal": "Trip", "facts": facts}}
    naming = content_stems(forget_subject(request_text)) - _GENERIC - VAGUE_WORDS
    removed = forget_in_working_memory(state, naming, _GENERIC | VAGUE_WORDS)
    left = {f["name"] for f in state["wm"]["facts"]}
    assert removed == len(gone) and left == set(names) - gone


@pytest.mark.slow
@pytest.mark.parametrize(
    ("request_text", "target", "neighbour"),
    [
        # a qualifier before the thing the user's subject owns keeps it the user's
        (
            "Please forget that my mortgage application got declined.",
            "My Halifax mortgage application got declined on Friday.",
            "I'm viewing a flat on Friday.",
        ),
        # of two weak matches, the closest holding more of the subject's words
        (
            "Delete what I said about the dentist visit in June.",
            "I've got a root canal at the dentist in June.",
            "My niece is getting christened in June.",
        ),
        # a memory dated otherwise is another one of its kind
        (
            "Delete the cholesterol results from last week.",
            "Last week's cholesterol results came back high.",
            "I have a cholesterol test next week.",
        ),
        (
            "Forget the job interview I had last week.",
            "The job interview I had last week went badly.",
            "I have a job interview next Tuesday.",
        ),
        (
            "delete my dads email",
            "My dad's email is frank.h@example.com.",
            "My stepdad's email is ron@example.com.",
        ),
        # a kind of detail reached through more of its examples
        (
            "Please wipe my medical details.",
            "I've been living with Crohn's disease for years.",
            "I walk my dog every morning.",
        ),
        (
            "Forget everything about my kids.",
            "My youngest is learning to swim.",
            "My nephew plays rugby.",
        ),
    ],
)
async def test_a_precise_request_takes_its_memory_and_leaves_the_neighbour(
    memory, request_text, target, neighbour
):
    app, user = "edits-precise", f"u-{uuid.uuid4().hex[:8]}"
    await _store(memory, app, user, [target, neighbour])
    context = make_context(app=app, user=user, memory=memory)
    outcome = await ConversationEdits().forget(
        Candidate(text=request_text, forget_request=True), context
    )
    assert outcome.status == "forgotten"
    assert context.state[FORGET_STATE_KEY]["deleted"] == 1
    left = await _left(memory, app, user, [target, neighbour])
    assert target not in left and neighbour in left
    # asked for something never stored, the neighbour alone is never taken
    other = f"u-{uuid.uuid4().hex[:8]}"
    await _store(memory, app, other, [neighbour])
    context = make_context(app=app, user=other, memory=memory)
    await ConversationEdits().forget(Candidate(text=request_text, forget_request=True), context)
    assert neighbour in await _left(memory, app, other, [neighbour])


@pytest.mark.slow
@pytest.mark.parametrize(
    "request_text", ["Please forget my book club.", "Could you forget my gym routine?"]
)
async def test_a_memory_close_in_meaning_but_sharing_no_word_is_asked_about_then_settled(
    memory, request_text
):
    """Nothing shares a word with the subject, but one memory is close in meaning: it is
    shown for a confirmation (ids in state, text only in ``temp:``), never deleted unasked;
    the user's answer in a later turn settles it (no: kept; yes: deleted)."""
    app = "edits-ask"
    held = [
        "Every other Thursday a few of us meet at the library to talk about novels.",
        "I lift weights on Mondays and Thursdays and swim on Saturdays.",
        "My brother is a plumber.",
    ]
    meant = held[0] if "book" in request_text else held[1]
    for answer, gone in ((False, False), ([1], True)):
        user = f"u-{uuid.uuid4().hex[:8]}"
        await _store(memory, app, user, held)
        context = make_context(app=app, user=user, memory=memory)
        edits = ConversationEdits()
        await edits.forget(Candidate(text=request_text, forget_request=True), context)
        assert context.state[FORGET_STATE_KEY]["deleted"] == 0
        assert context.state[ASKED_TEXTS_KEY] == [meant]
        pending = context.state[PENDING_FORGET_KEY]
        assert len(pending["ids"]) == 1 and meant not in str(pending)
        assert await edits.settle(context, True) is None  # not in the turn that asked
        assert set(held) <= await _left(memory, app, user, held)
        later = make_context(app=app, user=user, memory=memory, state=dict(context.state.to_dict()))
        await edits.settle(later, answer)
        left = await _left(memory, app, user, held)
        assert (meant not in left) is gone
        assert set(held) - {meant} <= left
        assert later.state[PENDING_FORGET_KEY] is None
