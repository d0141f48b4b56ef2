"""Dialogue acts the write policy reads: what a sentence *does*, beside what it is about.

A request or a command to the agent ("flights please", "flights again", "show me cheaper
ones", "Summarize my findings") asks for work; it states nothing about the user, so it is no
fact for long-term memory. The cues are the grammar of a directive, not a list of phrases:

* it opens with an order: an imperative verb, after discourse markers and "please"
  ("Show me ...", "Please rebook ...", "OK, hold it");
* or it is a short fragment with a request marker ("please", "again", "pls") and no subject
  that states something ("flights please", "cheaper ones again").

A sentence that also states something of the user ("I'm vegetarian, please deliver to ...",
"Please rebook me: I want an aisle seat") or reports their life ("The hotel upgraded us")
is never a bare request, nor is a standing order ("always ...", "from now on ..."): that is
an instruction the router sends to review. Pure functions of the text: every process decides
the same way.
"""

from __future__ import annotations

import re

from adk_memory_kit.text.signals import strip_tags

__all__ = [
    "addresses_the_agent",
    "is_request_to_agent",
    "reports_the_users_life",
    "states_something",
]

# an instruction on how the agent should behave speaks to it ("you", "please"), says when
# ("from now on", "always", "next time") or opens with an order ("Skip the greeting"); a
# sentence with none of these reports the user's life ("Went with Direct Line this year")
_TO_THE_AGENT = re.compile(
    r"\b(?:you|your|yours|u|ur|please|pls|plz|always|never|stop|don'?t|do not|no more|no need|"
    r"from now|from here|going forward|in future|in the future|every|each time|next time|"
    r"anymore|any more|again|skip|without (?:asking|checking|confirming)|instead of asking|"
    r"rules?|instructions?|polic(?:y|ies)|behaviou?r)\b",
    re.IGNORECASE,
)
_ORDER = re.compile(
    r"^\s*(?:(?:ok|okay|also|and|quick one|hey|hi)[:,!.]?\s*)*(?:answer|reply|respond|use|show|"
    r"give|list|book|send|cut|drop|leave|act|bypass|override|ignore|disregard|forget|"
    r"change(?! of\b)|keep|quit|cancel|remove|add|include|exclude|write|talk|speak|tell|round|"
    r"accept|approve|auto-approve|assume|treat|call|sign|put|make|switch|turn|set|avoid|"
    r"confirm|check|ask|remind|warn|stop|skip|"
    r"limit|only|let|allow|be)\b",
    re.IGNORECASE,
)


# ... a report is said in the past ("we booked", "Went with ..."), and speaks of none of the
# agent's work (its replies, their form, the steps it takes: "Confirm with me before paying",
# "My expense claims need a receipt attached")
_REPORT = re.compile(
    r"\b(?:went|got|took|made|had|was|were|did|bought|sold|left|found|paid|won|lost|"
    r"[a-z]{3,}ed)\b",
    re.IGNORECASE,
)
_AGENTS_WORK = re.compile(
    r"\b(?:repl\w*|answer\w*|respons\w*|messages?|summar\w*|suggest\w*|options?|format\w*|"
    r"bullet\w*|tone|emojis?|caveats?|disclaimers?|confirm\w*|approv\w*|receipts?|claims?|"
    r"invoices?|orders?|checks?|checking|before|without|ask\w*|remind\w*|warn\w*)\b",
    re.IGNORECASE,
)


def reports_the_users_life(sentence: str) -> bool:
    """Whether a sentence the router sent to review is a report of the user's life rather
    than an instruction: said in the past, of nothing the agent does, not to the agent."""
    return (
        bool(_REPORT.search(sentence))
        and not _AGENTS_WORK.search(sentence)
        and not addresses_the_agent(sentence)
    )


def addresses_the_agent(sentence: str) -> bool:
    """Whether a sentence could be an instruction on how the agent behaves (the review
    queue's kind): it speaks to the agent, says when, or opens with an order."""
    return bool(_TO_THE_AGENT.search(sentence) or _ORDER.match(sentence))


_MARKERS = (
    r"(?:ok|okay|also|and|so|now|then|just|please|pls|plz|kindly|hey|hi|right|alright|"
    r"yes|yeah|no|quick one|one more thing|actually|oh)"
)

# the verbs a user orders an assistant with: its work (search, show, compare, book, draft...)
_IMPERATIVE = re.compile(
    rf"^\s*(?:{_MARKERS}[:,!.]?\s+)*"
    r"(?:find|search|look|show|get|fetch|pull|bring|give|list|summari[sz]e|sum up|compare|"
    r"recommend|suggest|plan|pick|choose|sort|filter|narrow|rank|check|try|redo|repeat|retry|"
    r"refresh|reload|go|run|open|read|print|draft|write|email|send|text|call|ring|"
    r"book|rebook|reserve|order|hold|cancel|confirm|change|switch|add|remove|drop|skip|"
    r"use|tell|explain|translate|calculate|convert|answer|reply|respond|continue|proceed|"
    r"keep going|carry on|start|stop|wait|hurry|help|take|make|set|turn|move|put|let|"
    # the same orders in the kept languages of routing/cue_words.py
    r"muestra|mu[eé]strame|busca|b[uú]scame|reserva|pide|p[ií]deme|manda|m[aá]ndame|"
    r"mostra|mostre|procura|procure|pede|zeig|zeige|such|suche|buch|buche|bestell|bestelle|"
    r"schick|montre|montrez|cherche|cherchez|r[eé]serve|commande|envoie|mostrami|cerca|"
    r"cercami|prenota|ordina)\b",
    re.IGNORECASE,
)
_REQUEST_MARKER = re.compile(r"\b(?:please|pls|plz|again)\b", re.IGNORECASE)
#: A fragment is short: a marker in a longer sentence ("Good to talk to you again") is no
#: request on its own.
FRAGMENT_WORDS = 5
# a standing order ("always deliver to ...", "from now on ...") is an instruction for the
# review queue, not a one-off request: the router decides it, never this cue
_STANDING = re.compile(
    r"\b(?:always|never|from now on|from here on|going forward|in future|in the future|"
    r"every time|each time|next time|by default|whenever|anymore|any more)\b",
    re.IGNORECASE,
)

# a subject that states something: "I ...", "we ...", "my/our <noun> is/has/...", or a
# third-person clause with a finite verb of being/having ("the flight is cancelled")
_STATEMENT = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|im|ive)\b"
    r"|\b(?:my|our|his|her|their|the|this|that|it)\s+(?:\w+\s+){0,3}?"
    r"(?:is|are|was|were|has|have|had|'s|isn't|aren't|wasn't|weren't|hasn't|haven't)\b",
    re.IGNORECASE,
)


# a verb of being or having anywhere ("The office wifi network is OrchardGuest"), a contact
# ("email me at x@y.com", "@mira_writes"), or a named or possessed subject with a verb in the
# third person ("Dad lives in Enugu", "My manager prefers email")
_FINITE = re.compile(
    r"\b(?:am|is|are|was|were|has|have|had|isn't|aren't|wasn't|weren't|hasn't|haven't)\b",
    re.IGNORECASE,
)
_CONTACT = re.compile(r"\S+@\S+\.\w+|(?<!\S)@\w{3,}")
_THIRD_PERSON = re.compile(
    r"^(?:(?i:my|our|his|her|their)(?:\s+\w+){1,3}|[A-Z][a-z]+(?:\s+(?:and|&)\s+[A-Z][a-z]+)?)"
    r"\s+[a-z]{1,}[^s\W]s\b"
)


def states_something(sentence: str) -> bool:
    """Whether ``sentence`` may state something: a first-person clause, a verb of being or
    having, a contact, a named subject with a verb in the third person, or a report of the
    user's life (a directive opening with an order is judged by its clauses after it)."""
    text = strip_tags(sentence)
    if _STATEMENT.search(text) or _FINITE.search(text) or _CONTACT.search(text):
        return True
    if _THIRD_PERSON.match(text) and not _IMPERATIVE.match(text):
        return True
    return reports_the_users_life(text)


def is_request_to_agent(sentence: str) -> bool:
    """Whether ``sentence`` only asks the agent for work (a directive that states nothing):
    an imperative opening or a fragment with a request marker, with no statement in it."""
    text = strip_tags(sentence)
    if not text or states_something(text) or _STANDING.search(text):
        return False
    if _IMPERATIVE.match(text):
        return True
    return len(text.split()) <= FRAGMENT_WORDS and bool(_REQUEST_MARKER.search(text))
