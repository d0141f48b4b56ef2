"""The words of a wish that the assistant stop keeping something: "stop remembering my gym",
"don't store my card number", "I'd rather you didn't know about my debts".

One grammar for two readers: the offline router (a sentence opening with these words is a
request to forget, whatever the example bank says of it, so it is never stored nor sent to a
human reviewer) and the forget handler (what follows the words names the subject).

Each form speaks of the assistant's memory itself, and a bare imperative must name the
user's own thing ("don't store *my* ...", "stop remembering *where I* ..."), so neither an
ordinary instruction ("don't keep the change", "never store passwords in plain text",
"don't keep asking") nor a statement without its subject ("Don't know about my sister's
wedding yet", "Never remember names at parties") reads as one.
"""

from __future__ import annotations

import re

#: Text longer than this is read only up to here (a regex over a huge turn costs time).
MAX_REQUEST_CHARS = 1000

_TRACK = r"(?:track of|tabs on|a record of|a note of|notes on|hold of)"
#: A bare imperative must name the user's own thing: "my X", "anything about", "where I ..."
#: (a lookahead after the verb).
OWN_OBJECT = (
    r"(?=\s+(?:my|our|any|anything|everything|all|what|whatever|where|who|when|how|"
    r"that (?:i|we|my|our)|the fact|this|these|those|"
    r"the\s+(?:\w+\s+){0,2}?(?:(?:about|on|of|regarding)\s+(?:my|our|me|us)|"
    r"(?:where|when|that)\s+(?:i|we)\s+(?:said|told|mentioned|talked|shared)))\b)"
)
#: "keep", "save" and "store" also handle things (a lookahead after the object): "never save
#: my seat if I'm late", "don't keep my sister waiting", "stop saving my drafts to the shared
#: folder" are no requests
A_THING = (
    r"(?![^.,;!?]*\b(?:if|unless|until|while|waiting|warm|to the|in the|into the|on the|"
    r"onto the|for me|for us)\b)"
)
# a wish addressed to the assistant takes any object but one that makes it ordinary: "I don't
# want you to have to wait", "... to keep apologising", "... a bad impression"
_ANY = r"(?=\s+(?!(?:to|a|an|me|us|you|him|her|them|it|going|on|up|in|out|away)\b)(?!\w+ing\b)\w)"
_KNOWING = (
    r"(?:remember(?:ing)?|know(?:ing)?|keep(?:ing)? track of|keep(?:ing)?|stor(?:e|ing)|"
    r"sav(?:e|ing)|hold(?:ing)? on to|hang(?:ing)? on to|retain(?:ing)?|hav(?:e|ing))"
    r"(?:\s+about)?"
)

#: The verb phrases of such a wish, as one regex alternation (no leading politeness).
NOT_TO_KEEP = (
    rf"(?:don't|do not|dont) (?:keep {_TRACK}|remember|hold on to|hang on to|retain){OWN_OBJECT}|"
    rf"(?:don't|do not|dont) (?:keep|store|save){OWN_OBJECT}{A_THING}|"
    rf"never (?:keep {_TRACK}|retain){OWN_OBJECT}|"
    rf"never (?:keep|store|save){OWN_OBJECT}{A_THING}|"
    rf"(?:stop|quit) (?:keeping {_TRACK}|remembering|holding on to|hanging on to|retaining)"
    rf"{OWN_OBJECT}|"
    rf"(?:stop|quit) (?:keeping|storing|saving){OWN_OBJECT}{A_THING}|"
    rf"(?:i|we) (?:don't|do not|dont|no longer) (?:want|need) (?:you|u) (?:to )?{_KNOWING}{_ANY}"
    rf"{A_THING}|"
    rf"(?:i|we)(?:'d| would) (?:rather|prefer(?: it if)?) you (?:didn't|did not|not|don't|"
    rf"wouldn't) {_KNOWING}{_ANY}|"
    rf"(?:i|we)(?:'d| would) rather you (?:forgot|deleted|removed|erased|wiped|dropped)"
    rf"(?:\s+about)?{_ANY}|"
    rf"(?:you (?:don't|do not|no longer) (?:need|have) to|no need to) {_KNOWING}{OWN_OBJECT}|"
    # "could you not keep my old surname?"
    rf"(?:can|could|would|will) (?:you|u) not (?:store|remember|hold on to|hang on to|"
    rf"keep track of){OWN_OBJECT}{A_THING}|"
    rf"(?:can|could|would|will) (?:you|u) not (?:keep|save){OWN_OBJECT}"
    r"(?=[^.!?]*\b(?:on file|on record|in (?:your )?memory|stored|saved)\b)|"
    # a regret that it was said: "I regret telling you about the loan", "I wish I'd never
    # mentioned my ex"
    rf"i (?:regret|wish i(?:'d never| had never| hadn't| had not| never| didn't)|"
    rf"shouldn't have|should not have|should never have|never should have) "
    rf"(?:(?:told|telling|tell) (?:you|u)|(?:mentioned|mentioning|mention|said|saying|shared|"
    rf"sharing|brought up) (?:to |with )?(?:you|u))(?: about)?{OWN_OBJECT}"
)
#: What may come before a request: politeness, or a wish that it be done ("Actually, could
#: you please ...", "Don't forget to delete ...", "Make sure you forget ...").
POLITE = (
    r"(?:(?:please|pls|plz|kindly|(?:can|could|would|will) (?:you|u|ya)|i want you to|"
    r"i'd like you to|"
    r"i would like you to|i need you to|just|you can|you should|go ahead and|feel free to|"
    r"don't forget to|do not forget to|remember to|make sure (?:you|to)|be sure to),?\s+)*"
)
#: An interjection or a framing before the request ("OK so", "Note that ...").
OPENER = (
    r"(?:(?:actually|oh|ok|okay|right|so|and|also|hey|um|well|oi|yo|"
    # a hail only before a request's politeness ("mate can you scrap ...")
    r"(?:mate|bro|dude|hun)(?=,|\s+(?:can|could|would|will|please|pls|just)\b)|"
    r"never mind|on second "
    r"thought|note that|keep in mind(?: that)?|remember(?=,))\b[,.!]?\s*)*"
)
_ASKS_NOT_TO_KEEP = re.compile(rf"^\s*{OPENER}{POLITE}(?:{NOT_TO_KEEP})", re.IGNORECASE)


def plain(sentence: str) -> str:
    """``sentence`` as the grammar reads it: typographic apostrophes made plain (a phone
    types "don’t"), runs of white space one space, at most ``MAX_REQUEST_CHARS``."""
    text = sentence[: MAX_REQUEST_CHARS * 2].replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(text.split())[:MAX_REQUEST_CHARS]


def asks_not_to_keep(sentence: str) -> bool:
    """Whether ``sentence`` opens (after an interjection and politeness) with a wish that
    the assistant stop keeping something of the user's ("Could you stop remembering my
    gym?", "I'd rather you didn't know about the money I owe")."""
    return _ASKS_NOT_TO_KEEP.match(plain(sentence)) is not None
