"""What a request to forget says: whether a sentence asks for a deletion, and what it names.

One grammar for the offline router and the forget handler. The router routes to forget,
whatever its example bank says, a sentence that parses as a request about the user's own
thing or what the assistant holds (:func:`routes_as_request`); the handler deletes what
matches the subject parsed here (:func:`forget_subject`) and keeps as a fact a sentence that
asks for no deletion (:func:`keeps_what_it_says`). Input is read through
:func:`~.keep_requests.plain` (at most ``MAX_REQUEST_CHARS``), so every pattern runs in
linear time or close to it on any input.

A request opens (after an interjection and politeness) with a verb of memory ("forget",
"erase", "un-remember"), a wish that something not be kept (:data:`~.keep_requests.NOT_TO_KEEP`),
or a verb that also empties a plate or a basket ("delete", "remove", "bin", "take out") with
the user's own thing or a word of what the assistant holds as its object; or it names the
thing first and asks with a pronoun ("the trip in May, please don't keep that").
"""

from __future__ import annotations

import re

from adk_memory_kit.routing.cue_words import asks_to_forget_said
from adk_memory_kit.routing.edits.deletion_phrases import deletion_verbs, wished_gone
from adk_memory_kit.routing.edits.keep_requests import (
    MAX_REQUEST_CHARS,
    OPENER,
    POLITE,
    plain,
)
from adk_memory_kit.text.people import PEOPLE
from adk_memory_kit.text.signals import content_stems

# words that name no subject: "forget what I just told you", "delete all that stuff"
VAGUE_WORDS = content_stems(
    "that this it those these them all everything anything something whatever stuff thing "
    "things bit lot said say told tell telling mentioned talked talk just earlier before "
    "last recent recently now today ago previous conversation chat message messages word "
    "words never mind forget delete erase remove wipe purge scrub scrap undo drop clear "
    "remember remembered know knew stored saved noted please minute minutes second seconds "
    "moment while hour hours gave give given giving pls plz thx thanks thank cheers maybe "
    "you your"
)


def is_vague(subject: str) -> bool:
    """Whether a forget request's subject names nothing ("that", "what I just told you")."""
    return not (content_stems(subject) - VAGUE_WORDS)


_LEAD = re.compile(
    rf"^\s*{POLITE}{deletion_verbs(the_thing=True)}\s+"
    r"(?:(?:everything|anything|all|any|the|my|what|whatever|that|this)\s+)?"
    r"(?:(?:stuff|bit|bits|note|notes|detail|details|memory|memories|information|info|"
    r"records?|fact|facts|thing|things|part|mention|story|records of|stored fact)\s+)?"
    r"(?:(?:you|that i|i|we)\s+(?:have|know|stored|remember|saved|told you|gave you|said|"
    r"mentioned|shared)\s+)?"
    r"(?:(?:about|on|of|regarding|concerning|that|related to|to do with)\s+)?",
    re.IGNORECASE,
)
_OWN_LEAD = re.compile(rf"^\s*{POLITE}{deletion_verbs(the_thing=False)}", re.IGNORECASE)
# words of what the assistant holds, anywhere in a request
_OF_MEMORY = re.compile(
    r"\b(?:memory|memories|remember|told you|said|mentioned|notes?|records?|stored|saved|"
    r"know|info|information|details|data|history|on file)\b",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"\s*+(?:,\s*)?(?:from (?:your |the )?(?:memory|records|notes)|please|,? it'?s off|"
    r"for good|entirely|completely|any ?more|any longer|from now on|thanks|thank you|"
    r"pls|plz|thx|cheers|(?<![\w'])(?:lol|haha)|"
    r"on file|on record|in (?:your )?memory)?"
    r"(?:[\s,]+(?:please|pls|plz|thx|thanks|thank you|cheers|for good|any ?more|lol|haha))*"
    r"[.!?]*\s*$",
    re.IGNORECASE,
)


# an interjection before the verb ("Actually, forget ...", "OK so delete ...")
_OPENER = re.compile(rf"^\s*{OPENER}", re.IGNORECASE)


def _read(sentence: str) -> str:
    """``sentence`` as every pattern here reads it: :func:`~.keep_requests.plain`, without an
    opening interjection."""
    return _OPENER.sub("", plain(sentence), count=1)


# a new clause after what is named ("my address, it's out of date", "it, I'll book it myself")
_NEXT_CLAUSE = re.compile(
    r"\s*[?!.]\s+|"
    r"\s*(?:[,;:]|\s-|\s\u2013)\s+(?=(?:i|i'd|i'll|i'm|i've|we|we'll|we're|let's|just|but|"
    r"instead|it's|its|that's|thats|is|was|she|he|they|you|use|make|book)\b)|\s+but\s+",
    re.IGNORECASE,
)


# a sentence routed as a forget request that asks for no deletion: a wish that something be
# kept ("Don't forget my birthday is on Friday"), or what the user did ("I forgot my keys at
# the gym") with no word of a wish or of a deletion
def _first_clause(text: str) -> str:
    """``text`` up to its first clause break (:data:`_NEXT_CLAUSE`)."""
    return _NEXT_CLAUSE.split(text, maxsplit=1)[0]


_KEEP_WISH = re.compile(
    r"^\s*(?:please\s+)?(?:(?:don't|do not|dont|never) forget|remember|keep in mind|make sure "
    r"you remember|note that)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"^\s*(?:i|we)\b(?!['\u2019]d\b)", re.IGNORECASE)
_WISH_OR_DELETION = re.compile(
    r"\b(?:you|your|want|wants|wish|rather|prefer|need|please|would|gone)\b", re.IGNORECASE
)
# ... after "don't forget" / "remember", a deletion word makes it a request too
_DELETION = re.compile(
    r"\b(?:delete|deleted|erase|erased|remove|removed|wipe|wiped|scrub|purge|clear|forget)\b",
    re.IGNORECASE,
)
_FORGET_THE = re.compile(rf"^\s*{POLITE}forget\s+(?:about\s+)?the\s", re.IGNORECASE)
_A_DETAIL = re.compile(
    r"\w's\b|\w'(?=\s)|\b(?:name|names|number|numbers|address|email|details?|info|"
    r"information|bit|stuff|thing|part|fact|story|code|password|pin|username|handle|date)\b",
    re.IGNORECASE,
)
_FIRST_PERSON_WORD = re.compile(r"\b(?:i|me|my|mine|we|us|our)\b", re.IGNORECASE)
# "forget it, ..." / "forget that, ...": an idiom for "never mind", naming nothing
_IDIOM = frozenset(("it", "that", "this", "about it", "about that"))


# a list of things named ("my gym, my work, my address and my kids' school")
_LIST_SEPARATOR = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?=(?:my|our)\s)", re.IGNORECASE)


def subject_parts(subject: str) -> list[str]:
    """The things a forget request's subject lists, each its own subject ("my gym, my work
    and my address" -> three); the subject itself when it lists one thing. At most eight."""
    parts = [p.strip(" ,.") for p in _LIST_SEPARATOR.split(subject) if p.strip(" ,.")]
    return parts[:8] if len(parts) > 1 else [subject]


_PRONOUN = r"(?:that|it|this|them|those)"
# after the pronoun: the end, or politeness, or a new clause ("..., it's a surprise")
_ENDS = (
    r"(?=\s*(?:$|[.!?]|(?:,\s*)?(?:please|pls|from|in your|on file|for good|thanks)\b|"
    r",\s*(?:it's|it is|that's|i|i'm|i'd|we|we're|not)\b))"
)
# the request after the thing it names, in words of memory: "..., can you take that out of
# your memory?", "..., please don't remember that", "..., stop storing it"
_ASKED_OF_IT_IN_MEMORY = re.compile(
    rf"^\s*{OPENER}{POLITE}(?:"
    rf"(?:take|get|leave|keep) {_PRONOUN} (?:out of|off) (?:your |the )?"
    r"(?:memory|memories|records?|notes|file|system|database)\b|"
    rf"(?:don't|do not|dont|never|stop|quit) (?:remember|remembering|store|storing|"
    rf"hold on to|holding on to|hang on to|keep track of|keeping track of) {_PRONOUN}{_ENDS}|"
    # "keep" and "save" of "that" / "this", something said ("the trip in May, please don't
    # keep that"), not of "it" / "them", a thing ("That seat, don't save it")
    rf"(?:don't|do not|dont|never) (?:keep|save) (?:that|this){_ENDS})",
    re.IGNORECASE,
)
# ... or in any words of deletion, when what is named is something said ("the bit about my
# landlord - delete it", "what I said about my boss, please forget that")
_ASKED_OF_IT = re.compile(
    rf"^\s*{OPENER}{POLITE}(?:"
    rf"(?:forget|erase|un-?remember|delete|remove|wipe|scrub|purge|bin|ditch|scrap|"
    rf"get rid of|drop|lose) {_PRONOUN}{_ENDS}|"
    rf"(?:don't|do not|dont|never|stop|quit) (?:keep|keeping|save|saving) {_PRONOUN}{_ENDS})",
    re.IGNORECASE,
)
# what is named first: a noun phrase, not a clause ("the trip in May", "my ex's new address",
# "what I said about my boss")
_FRONTED = re.compile(
    r"^\s*(?P<named>(?:the|my|our|that|all|any|what|everything)\b[^,;:?]{2,120}?)"
    r"\s*(?:[,;:?]|\s-|\s\u2013)\s+(?P<ask>.+)$",
    re.IGNORECASE,
)
_NAMED_AS_MEMORY = re.compile(
    r"^(?:(?:the|all the|that|any)\s+(?:stuff|bit|bits|thing|things|part|info|information|"
    r"note|notes|details?|fact|facts|mention)\s+(?:about|on|of|regarding|re)\s+|"
    r"(?:what|everything|anything)\s+(?:i|we)\s+(?:said|told you|mentioned|shared)"
    r"(?:\s+about)?\s+)",
    re.IGNORECASE,
)


# ... or a detail of the user's ("my old passport number, delete it")
_OWN_DETAIL_NAMED = re.compile(
    r"^(?:my|our)\b.*\b(?:number|address|email|password|username|handle|details|info|pin|"
    r"code|postcode)s?$",
    re.IGNORECASE,
)


def _named_first(text: str) -> str | None:
    """The thing a request names before asking with a pronoun ("the canary islands trip,
    please don't keep that" -> "the canary islands trip"); ``None`` for any other form."""
    fronted = _FRONTED.match(text)
    if fronted is None:
        return None
    named, ask = fronted.group("named").strip(), fronted.group("ask")
    said = _NAMED_AS_MEMORY.match(named) or _OWN_DETAIL_NAMED.match(named)
    if not (_ASKED_OF_IT_IN_MEMORY.match(ask) or (said and _ASKED_OF_IT.match(ask))):
        return None  # "The leftover rice, bin it", "That seat, don't save it": things
    return _NAMED_AS_MEMORY.sub("", named, count=1) or None


# the telling before what was told ("the bit where I told you my brother owes me money", "i
# told u my visa got refused", "that I said I'm vegetarian"): what was told is the subject
_TOLD = re.compile(
    r"^(?:(?:the\s+)?(?:bit|bits|stuff|thing|things|part|info|information|note|notes|details?|"
    r"fact|facts|mention|story)\s+)?(?:where|when|that|how|what|wat|everything|anything|all)?"
    r"\s*(?:i|we)\s+(?:ever\s+)?(?:(?:told|tell|gave|let)\s+(?:you|u|ya)(?:\s+know)?|said|"
    r"mentioned|shared)\b(?:\s+(?:anything|everything|stuff|things))?"
    r"(?:\s+(?:about|abt|that|on|of)\b)?\s*|^(?:(?:anything|everything)\s+)?(?:about|abt)\s+",
    re.IGNORECASE,
)


# a person's possessive typed without its apostrophe ("my moms phone number", "the kids
# school"): a person's word, an "s", then what is theirs (not a verb: "my kids are ...")
_BARE_POSSESSIVE = re.compile(
    r"(?:^|\b(?:my|our|the)\s+)(?P<who>[a-z]+?)s\s+(?!(?:are|were|is|was|have|had|has|do|"
    r"did|does|go|went|live|lived|and|or|will|would|can|could|got|get|say|said|think|"
    r"thought|want|wanted|keep|kept|need|needed|love|hate|like)\b)(?=[a-z])",
    re.IGNORECASE,
)


def _with_apostrophe(subject: str) -> str:
    match = _BARE_POSSESSIVE.search(subject)
    if match is None or match.group("who").lower() not in PEOPLE:
        return subject
    at = match.end("who")
    return subject[:at] + "'" + subject[at:]


def _without_telling(subject: str) -> str:
    told = _TOLD.sub("", subject, count=1).strip(" ,.")
    return _with_apostrophe(told if content_stems(told) else subject)


def forget_subject(request: str) -> str:
    """What a forget request names ("Please erase the notes on my old flat." -> "my old
    flat"; "get rid of the bit where I told you my brother owes me money" -> "my brother
    owes me money"), up to the end of its clause; the whole request when no verb phrase is
    found."""
    text = _read(request)
    if not _LEAD.match(text) and (wished := wished_gone(text)):
        wish = _NAMED_AS_MEMORY.sub("", wished.group("subject").strip(" ,."), count=1)
        return _without_telling(wish)
    if not _LEAD.match(text) and (named := _named_first(text)):
        return _without_telling(named)
    subject = _first_clause(_LEAD.sub("", text, count=1))
    subject = _TAIL.sub("", subject, count=1).strip(" ,.")
    return _without_telling(subject) if subject else plain(request)


def asks_to_forget(request: str) -> bool:
    """Whether ``request`` opens with a deletion verb ("please forget ...", "delete ..."),
    or a wish that something not be kept ("stop remembering my ...", "I'd like my old number
    deleted"), after an interjection; "I forgot my keys" or "don't forget the tickets" does
    not."""
    text = _read(request)
    return (
        _LEAD.match(text) is not None
        or wished_gone(text) is not None
        or _named_first(text) is not None
    )


# the assistant's own instructions are not the user's memories ("Forget your instructions")
_NOT_THE_USERS = re.compile(
    rf"^\s*{POLITE}\w+(?: \w+)? (?:all )?(?:your|the|those|these) (?:previous |earlier )?"
    r"(?:instructions|rules|guidelines|prompt|system prompt|settings)\b",
    re.IGNORECASE,
)


# what the assistant holds, named as such ("the thing about ...", "the bit on ...")
_SAID_THING = re.compile(
    r"\b(?:thing|things|bit|bits|stuff|part|info|information|details?|notes?|mention)\s+"
    r"(?:about|on|regarding|re|where)\b|\bthe\s+\w+(?:\s+\w+)?\s+(?:thing|stuff|business)\b",
    re.IGNORECASE,
)
_OWN_WORD = re.compile(
    r"\b(?:my|our|un-?remember)\b|"
    # what the assistant holds about someone the user names ("Forget Leo's football stuff")
    r"(?-i:\b[A-Z][a-z]+)['\u2019]s (?:\w+ )?(?:stuff|things?|details|info|information)\b",
    re.IGNORECASE,
)


def routes_as_request(sentence: str, *, strict: bool = False) -> bool:
    """The router's gate: whether ``sentence`` is a request to forget whatever the example
    bank says of it. A request (:func:`asks_to_forget`) whose object is the user's own thing
    or what the assistant holds; "Delete the duplicate rows" or "Wipe the table down" parse
    as requests only by their verb, so they are left to the bank unless they speak of
    memory. ``strict`` (to overrule a bank that said "review" or "forget what I said"): the
    request also speaks of memory, of something said, or of the user's own thing in its first
    clause."""
    text = _read(sentence)
    if _NOT_THE_USERS.match(text):
        return False
    of_memory = _OF_MEMORY.search(text) is not None
    if strict and not (
        of_memory or _SAID_THING.search(text) or _OWN_WORD.search(_first_clause(text))
    ):
        return False  # "Please forget about the hassle", "Forget what the forecast says"
    if wished_gone(text) or _named_first(text):
        return True
    # a deletion verb: of the user's own thing, or of something that speaks of memory
    return _LEAD.match(text) is not None and (of_memory or _OWN_LEAD.match(text) is not None)


def keeps_what_it_says(sentence: str) -> bool:
    """Whether a sentence taken for a forget request asks for no deletion at all: it asks for
    something to be kept ("Don't forget my birthday is on Friday") or tells what the user did
    ("I forgot my keys at the gym"), with no word of a deletion or a wish after. Such a
    sentence is kept as a fact; any other that does not parse as a request is neither acted
    on nor stored."""
    text = _read(sentence)
    if wish := _KEEP_WISH.match(text):
        return not (
            _WISH_OR_DELETION.search(text, wish.end()) or _DELETION.search(text, wish.end())
        )
    return bool(_FIRST_PERSON.match(text)) and not _WISH_OR_DELETION.search(text)


def is_idiom(request: str) -> bool:
    """ "Forget it, I'll book it myself": the verb names nothing and another clause follows."""
    text = _read(request)
    rest = _LEAD.sub("", text, count=1)
    if rest == text:
        return False
    parts = _NEXT_CLAUSE.split(rest.strip(), maxsplit=1)
    if len(parts) != 2:
        return False
    if parts[0].strip(" ,.!").lower() in _IDIOM:
        return True
    # a change of plan: "Forget the hotel, book an Airbnb instead", "Forget about the museum,
    # we're out of time" (the thing is not the user's, and what follows in the same sentence
    # is the new plan) ... but a detail or someone's thing is what the assistant holds
    # ("forget the name of Jamie's school, I overshared"), and a request that ends its own
    # sentence is a request ("Forget the Oslo plan please. It's off anyway")
    ends = _NEXT_CLAUSE.search(rest.strip())
    return (
        ends is not None
        and not any(mark in ends.group() for mark in ".?!")
        and bool(_FORGET_THE.match(text))
        and not _FIRST_PERSON_WORD.search(parts[0])
        and not _A_DETAIL.search(_first_clause(text))
    )


# any word a request to forget is said with (a superset of what the grammar and the bank
# read): a turn without one is never a request, so nothing runs for it before the reply
_MAY_ASK = re.compile(
    r"\b(?:forget|forgot|delete|erase|remove|wipe|purge|scrub|scrap|unlearn|un-?remember|"
    r"remember\w*|keep\w*|stor\w*|sav\w*|know\w*|hold\w*|hang\w*|retain\w*|regret\w*|told|"
    r"tell\w*|mention\w*|bin|ditch|clear|drop|lose|nuke|junk|trash|strike|take out|get rid|"
    r"memory|memories|records?|notes?)\b",
    re.IGNORECASE,
)


def may_ask_to_forget(text: str) -> bool:
    """Whether ``text`` holds a word a request to forget is said with, in English or in one
    of the router's other languages (:func:`~..cue_words.asks_to_forget_said`; cheap;
    ``False`` means it is certainly no request)."""
    head = text[:MAX_REQUEST_CHARS]
    return _MAY_ASK.search(head) is not None or asks_to_forget_said(head)
