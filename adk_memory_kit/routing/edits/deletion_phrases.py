"""The phrases that ask for a deletion: the verbs that open a request, and the wishes that
name the thing in the middle ("I'd like my old number deleted"). Patterns only, read by
:mod:`.forget_requests` (input through :func:`~.keep_requests.plain`, so each runs in linear
time or close to it).
"""

from __future__ import annotations

import re

from adk_memory_kit.routing.edits.keep_requests import NOT_TO_KEEP, OWN_OBJECT

#: Not out of a memory: the object is taken from, off or out of something else ("... from the
#: slide deck", "... off the steak", "... in the email"); a negative lookahead.
NOT_FROM_ELSEWHERE = (
    r"(?![^.!?]*\b(?:(?:from|off|out of)\s+(?:my|the|this|our|that|your)|"
    r"(?:in|into|on|onto)\s+(?:the|this|that|your))\s+"
    r"(?!memory|memories|notes|records?|profile|file|system|database|head)\w)"
)

#: A word for what the assistant holds, as the object of a verb that also takes things ("bin
#: the info about my ...", "drop the thing about the betting apps"); a lookahead. The word
#: after it ties it to something said ("about", "regarding", "on my", "where I ...").
MEMORY_OBJECT = (
    r"(?=\s+(?:the|that|this|all the|any|all)\s+(?:\w+\s+)?(?:info|information|bit|bits|"
    r"stuff|thing|things|part|note|notes|detail|details|fact|facts|mention|memory|memories|"
    r"record|records)\s+(?:about|regarding|re|related to|to do with|"
    r"(?:on|of|that)\s+(?:my|our|me|us|i|we)\b|"
    r"(?:where|when)\s+(?:i|we)\s+(?:said|told|mentioned|talked about|shared)\b|"
    r"(?:i|we)\s+(?:told|gave|said|mentioned|shared))\b)"
    rf"{NOT_FROM_ELSEWHERE}"
)
# a detail of the user's in the first words after the verb ("drop my old number", "ditch my
# work email"), not a chore ("drop my kids at school", "cut my hair")
_OWN_DETAIL = (
    rf"{OWN_OBJECT}(?=\s+(?:\S+\s+){{0,3}}?(?:memory|memories|notes?|records?|preferences?|"
    r"details|info|information|data|history|number|numbers|address|email|password|"
    r"username|handle|postcode|zip|pin|passcode|code)\b)"
    rf"{NOT_FROM_ELSEWHERE}"
)


def deletion_verbs(the_thing: bool) -> str:
    """The verb phrases that open a request (an alternation). ``the_thing``: "delete" and
    "remove" also take "the X" ("Remove the vet bills"), as the handler reads them; the
    router's gate leaves that form to the example bank ("Delete the duplicate rows")."""
    the = rf"|(?=\s+the\s){NOT_FROM_ELSEWHERE}" if the_thing else ""
    return (
        # "forget" and "erase" speak of memory; the other verbs also empty a plate, a pan or
        # a basket ("Remove the mushrooms from my pizza", "Scrub the pan"), so they must name
        # the user's own thing ("Remove my old number", "Delete the note about my landlord")
        rf"(?:forget|erase|unlearn|un-?remember|{NOT_TO_KEEP}|"
        # "bin", "ditch", "take out" and the like: only what the assistant holds ("bin the
        # info about ...") or a detail of the user's ("ditch my old number"), never "take out
        # the bins" or "cut my hair"
        rf"(?:bin|ditch|nuke|chuck|toss|take out|strike|cut|junk|trash)"
        rf"(?:{MEMORY_OBJECT}|{_OWN_DETAIL})|"
        r"(?:(?:delete|remove|wipe(?: out)?|purge|scrap|get rid of|clear out)"
        rf"(?:{OWN_OBJECT}{NOT_FROM_ELSEWHERE}{the}|{MEMORY_OBJECT})|"
        rf"scrub{OWN_OBJECT}|"
        # "clear", "drop" and "lose" also plan a day or a lift ("Clear my afternoon", "Drop
        # my kids at school"): only about a detail or what the assistant noted
        rf"(?:clear|drop|lose)(?:{MEMORY_OBJECT}|{_OWN_DETAIL})))"
    )


# a wish with the thing named in the middle: "I'd like my old number deleted", "I don't want
# my address stored"
# (a tattoo, a mole or the carpet is "removed" too: "removed", "gone", "dropped" and
# "scrubbed" take a detail of the user's or what the assistant holds, never from elsewhere)
_DETAIL_WORD = (
    r"(?:number|numbers|address|email|password|username|handle|details|info|information|"
    r"data|history|postcode|pin|code|name|names|notes?|records?|memory|memories|stuff|bit|"
    r"part|thing|things)"
)
_WANTS = r"^\s*(?:i|we)(?:'d| would)? (?:like|want|prefer) "
_WANT_GONE = re.compile(
    rf"{_WANTS}(?P<subject>(?:my|our|the|all|any) .+?) (?:deleted|erased|forgotten|wiped)\b",
    re.IGNORECASE,
)
_WANT_DETAIL_GONE = re.compile(
    rf"{_WANTS}(?P<subject>(?:my|our|the|all|any) (?:.+? )?{_DETAIL_WORD}) "
    rf"(?:removed|gone|dropped|scrubbed)\b{NOT_FROM_ELSEWHERE}",
    re.IGNORECASE,
)
# ... any of them out of the assistant's memory ("I want my allergies removed from your memory")
_WANT_OUT_OF_MEMORY = re.compile(
    rf"{_WANTS}(?P<subject>(?:my|our|the|all|any) .+?) (?:removed|gone|dropped|scrubbed|"
    r"taken out|out) (?:of|from) (?:your |the )?(?:memory|memories|records|notes|system)\b",
    re.IGNORECASE,
)
_NOT_WANT_KEPT = re.compile(
    r"^\s*(?:i|we) (?:don't|do not|no longer) want (?P<subject>(?:my|our|the|any|all) .+?)"
    r" (?:(?:stored|kept|saved)\b(?!\s+(?:warm|at|in|on|under|safe|clean|open|up)\b)|"
    r"remembered|on file|on record|in (?:your )?memory)\b",
    re.IGNORECASE,
)


def wished_gone(text: str) -> re.Match[str] | None:
    """The wish a text opens with that something be gone, its ``subject`` group the thing."""
    return (
        _WANT_GONE.match(text)
        or _WANT_DETAIL_GONE.match(text)
        or _WANT_OUT_OF_MEMORY.match(text)
        or _NOT_WANT_KEPT.match(text)
    )
