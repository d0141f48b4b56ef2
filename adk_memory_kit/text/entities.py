"""The entities a text names, as keys that link memories about the same thing.

Offline and cheap (regular expressions over the stored, already redacted text), so every
write can afford it. Four kinds of key, each a short lower-case string with a kind prefix:

* ``n:<name>``: a proper name, one or more capitalised words read mid-sentence ("Melanie",
  "Charlotte's Web", "New York", "LGBTQ"), or at a sentence's start when the text also names
  it mid-sentence or it runs into a second capitalised word ("Oliver chewed ...": no;
  "Lake Tahoe was ...": yes). A word capitalised only because it opens a sentence is no name.
* ``r:<owner>:<relation>``: a person or animal named by relation to someone, from a kept
  vocabulary (:data:`RELATION_GROUPS`: kin, friends, roles such as mentor or doctor, pets):
  "my sister" written by Caroline is ``r:caroline:sister``, "Caroline's mentor" is
  ``r:caroline:mentor``, "my sister" written by the user (an unnamed author) is
  ``r:me:sister``. "her sister" names no owner and gives no key.
* ``t:<title>``: a quoted title of a book, film, song or product ("Nothing is Impossible").
* ``d:<year>`` / ``d:<year>-<month>``: an explicit date ("in 2019", "May 2023", "7 May
  2023"). Relative dates ("last Tuesday") give none: the row's event time already holds them.

Apposition says two keys are one entity where the text supports it ("my sister Mel",
"Mel, my sister"): the row holds ``a:<name>=<relation key>`` and ``b:<relation key>=<name>``,
so the read side finds either from the other by key prefix (memory/entity_recall.py). Each
word of a name of two or more words is a ``w:<word>`` key ("Dahl" finds "Poul Dahl"). A short
name that opens a longer one the user has ("Mel", "Melanie") is joined at read time, against
the user's own entities, never here.

Guarantees: the same text and author give the same keys, in first-seen order, at most
:data:`MAX_KEYS` of them, each at most :data:`MAX_KEY_CHARS` characters; no key is made of a
redaction placeholder. Only Latin, Greek and Cyrillic capitalisation is read; a text in a
script without letter case gives only relation, title and date keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.text.people import PEOPLE_GROUPS
from adk_memory_kit.text.signals import STOPWORDS

#: Relations beyond kin (roles and animals), one group per relation, first word its key.
ROLE_GROUPS = (
    "mentor mentors",
    "boss manager supervisor",
    "teacher teachers",
    "coach trainer",
    "doctor gp physician",
    "dentist",
    "vet",
    "nurse",
    "therapist counselor counsellor psychologist",
    "landlord landlady",
    "tenant lodger",
    "tutor",
    "student students pupil",
    "postman postwoman mailman",
    "inspector",
    "lawyer solicitor attorney",
    "accountant",
    "client clients customer",
    "mechanic",
    "priest pastor vicar",
    "godmother godfather godchild",
    "team",
    "band",
    "club",
    "dog dogs puppy pup",
    "cat cats kitten kitty",
    "pet pets",
    "horse pony",
    "bird parrot",
    "hen hens chicken chickens",
    "fish",
    "rabbit bunny",
    "hamster",
    "snake",
    "turtle tortoise",
)
#: Every relation word -> its group's key word (kin from text/people.py, roles and pets).
RELATION_GROUPS = {w: g.split()[0] for g in (*PEOPLE_GROUPS, *ROLE_GROUPS) for w in g.split()}
#: Familiar names for a parent, read as the relation when used as a name ("Mom said ...").
_PARENT_NAMES = {"mom": "mum", "mum": "mum", "mommy": "mum", "dad": "dad", "daddy": "dad"}
#: Authors whose "my" is the user's own (``r:me:...``): ADK's author of a user turn, or none.
#: Any other author (a speaker's name, an agent's name) owns its own relations.
USER_AUTHORS = frozenset({"", "user", "me"})

MAX_KEYS = 32
MAX_KEY_CHARS = 80
_MAX_TEXT = 20_000
_MAX_NAME_WORDS = 4

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        )
    )
    for m in names.split()
}
_CALENDAR_WORDS = frozenset(
    {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", *_MONTHS}
)
# capitalised words that are no name ("I'm", "OK"; "My" after an emoji)
_NOT_NAMES = STOPWORDS | {"ok", "okay", "lol", "omg", "haha", "tv"}
# words that may join two capitalised words into one name ("Bank of America")
_JOINERS = frozenset({"of", "de", "del", "da", "van", "von", "der", "la", "le", "and"})

_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['\u2019\-.&](?=[^\W_]))*", re.UNICODE)
_PLACEHOLDER = re.compile(r"\[[A-Z_ ]{2,40}\]|<[A-Z_]{2,40}>")
_QUOTED = re.compile(r"[\"\u201c\u00ab]([^\"\u201d\u00bb\n]{2,80})[\"\u201d\u00bb]")
_POSSESSIVE_S = re.compile(r"['\u2019]s?$")
_OWNER_WORD = re.compile(r"\b([Mm]y|[Oo]ur|[A-Z][^\W\d_]*['\u2019]s)\s+")
_LOWER_WORD = re.compile(r"([a-z][a-z\-]*)\s*")
_RELATION_WORDS = 3  # "my best friend", "my charge nurse", "my little sister"
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_MONTH_YEAR = re.compile(
    r"\b([A-Za-z]{3,9})\.?\s+(?:(?:\d{1,2})(?:st|nd|rd|th)?,?\s+)?(1[89]\d\d|20\d\d)\b"
)
_DAY_MONTH_YEAR = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(1[89]\d\d|20\d\d)\b"
)
# what may stand between a name and its relation in an apposition: "Mette, my charge
# nurse", "my sister Mel", "my mentor, Priya,", "Priya (my mentor)", "my dog is called Rex"
_APPOSITION_CHARS = 24
_APPOSITION_GAP = re.compile(
    r"^(?:\s*[,(]?\s*|\s+(?:is|was)\s+(?:called|named)\s+|\s+called\s+|\s+named\s+)$"
)


@dataclass(frozen=True)
class _Span:
    key: str
    start: int
    end: int


def _clean(text: str) -> str:
    return _PLACEHOLDER.sub(" . ", text[:_MAX_TEXT])


def _key(kind: str, value: str) -> str:
    return f"{kind}:{' '.join(value.lower().replace(chr(0x2019), chr(39)).split())}"[:MAX_KEY_CHARS]


def _owner(author: str | None) -> str:
    name = (author or "").strip().lower()
    return "me" if name in USER_AUTHORS else " ".join(name.split())[:40]


def _breaks(gap: str) -> bool:
    """Whether the characters between two words end a sentence or clause for names: any
    punctuation but a comma or a hyphen (an emoji too)."""
    return any(not (c.isspace() or c in ",-") for c in gap)


def _name_runs(text: str) -> list[tuple[list[re.Match[str]], bool]]:
    """Runs of capitalised words, each with whether it opens a sentence."""
    runs: list[tuple[list[re.Match[str]], bool]] = []
    run: list[re.Match[str]] = []
    run_opens = False
    last_end = 0

    def close() -> None:
        while run and run[-1].group(0).lower() in _JOINERS:
            run.pop()
        if run:
            runs.append((list(run), run_opens))
        run.clear()

    for m in _WORD.finditer(text):
        gap = text[last_end : m.start()]
        broke = last_end == 0 or _breaks(gap)
        word = m.group(0)
        last_end = m.end()
        if run and (broke or "," in gap or len(run) >= _MAX_NAME_WORDS):
            close()
        bare = _POSSESSIVE_S.sub("", word)
        if len(bare) > 1 and bare[0].isupper() and bare.lower() not in _NOT_NAMES:
            if not run:
                run_opens = broke
            run.append(m)
            if bare != word:
                close()  # "Caroline's mentor": the name ends at its possessive
        elif run and word.lower() in _JOINERS:
            run.append(m)
        else:
            close()
    close()
    return runs


def _names(text: str, relations: list[_Span]) -> list[_Span]:
    """Proper names: runs read mid-sentence; a run opening a sentence loses its first word
    unless the text also names that word mid-sentence ("Hey Melanie" -> "Melanie"; "It's",
    "Life's" open sentences too), and keeps it in a second key when two or more words run
    ("Poul Dahl, he is ..." -> "dahl" and "poul dahl")."""
    runs = _name_runs(text)
    mid = {m.group(0).lower() for run, opens in runs if not opens for m in run}
    spans: list[_Span] = []
    for run, opens in runs:
        first = run[0].group(0)
        if _POSSESSIVE_S.sub("", first).lower() in _PARENT_NAMES:
            spans.append(_Span(_POSSESSIVE_S.sub("", first), run[0].start(), run[0].end()))
            run = run[1:]
        elif opens and first.lower() not in mid and not _beside(text, run, relations):
            whole = run if len(run) > 1 and run[1].group(0)[0].isupper() else None
            run = run[1:]
            while run and run[0].group(0).lower() in _JOINERS:
                run = run[1:]
            if whole and run:
                spans.append(_span_of(text, whole))
        if run and not all(m.group(0).lower() in _CALENDAR_WORDS for m in run):
            spans.append(_span_of(text, run))
    return spans


def _in_apposition(text: str, first: int, second: int) -> bool:
    """Whether the text between two spans (``first`` ends where it starts, ``second`` starts
    where it ends) makes them one entity ("Mette, my charge nurse", "my sister Mel")."""
    return 0 <= second - first <= _APPOSITION_CHARS and bool(
        _APPOSITION_GAP.match(text[first:second])
    )


def _beside(text: str, run: list[re.Match[str]], relations: list[_Span]) -> bool:
    """Whether a relation follows the run in apposition ("Mette, my charge nurse")."""
    return any(_in_apposition(text, run[-1].end(), r.start) for r in relations)


def _span_of(text: str, run: list[re.Match[str]]) -> _Span:
    return _Span(
        _POSSESSIVE_S.sub("", text[run[0].start() : run[-1].end()]), run[0].start(), run[-1].end()
    )


def _relations(text: str, owner: str) -> list[_Span]:
    """Each "my sister" / "Caroline's mentor" / "my charge nurse" in ``text``: an owner word
    and, within the next three lower-case words (no stop word), one of the vocabulary's."""
    found: list[_Span] = []
    for m in _OWNER_WORD.finditer(text):
        at = m.end()
        for _ in range(_RELATION_WORDS):
            word = _LOWER_WORD.match(text, at)
            if word is None or word.group(1) in STOPWORDS:
                break
            group = RELATION_GROUPS.get(word.group(1))
            if group is not None:
                who = m.group(1)
                whose = owner if who.lower() in ("my", "our") else _POSSESSIVE_S.sub("", who)
                key = _key("r", f"{whose.lower()}:{group}")
                found.append(_Span(key, m.start(), word.start(1) + len(word.group(1))))
                break
            at = word.end()
    return found


def _aliases(text: str, names: list[_Span], relations: list[_Span]) -> list[str]:
    """``a:<name>=<relation key>`` for each name standing in apposition to a relation."""
    keys: list[str] = []
    for rel in relations:
        for name in names:
            if _in_apposition(text, name.end, rel.start) or _in_apposition(
                text, rel.end, name.start
            ):
                keys.append(f"a:{name.key[2:]}={rel.key}"[:MAX_KEY_CHARS])
                keys.append(f"b:{rel.key}={name.key[2:]}"[:MAX_KEY_CHARS])
    return keys


def name_words(key: str) -> list[str]:
    """``w:<word>`` for each word of a name of two or more words ("n:poul dahl" ->
    "w:poul", "w:dahl"), so "Dahl" alone finds "Poul Dahl" by key."""
    words = key[2:].split()
    if len(words) < 2:
        return []
    return [f"w:{w}" for w in words if len(w) > 2 and w not in _JOINERS]


def _dates(text: str) -> list[str]:
    keys: list[str] = []
    for pattern in (_MONTH_YEAR, _DAY_MONTH_YEAR):
        for m in pattern.finditer(text):
            month = _MONTHS.get(m.group(1).lower())
            if month is not None:
                keys.append(f"d:{m.group(2)}-{month:02d}")
    keys.extend(f"d:{y}" for y in _YEAR.findall(text))
    return keys


def entities(text: str, author: str | None = None) -> list[str]:
    """The entity keys ``text`` names, first seen first (see the module docstring).

    ``author``: who wrote it, the owner of its "my ..." relations (``None`` or ``"user"``:
    the user, ``me``; else the author's name, a speaker's or an agent's)."""
    clean = _clean(text)
    owner = _owner(author)
    relations = _relations(clean, owner)
    keys = [r.key for r in relations]
    titles = []
    for title in _QUOTED.findall(clean):
        words = title.strip(" ,.!?")
        if words and len(words.split()) <= 8 and any(c.isalpha() for c in words):
            titles.append(words.lower())
            keys.append(_key("t", words))
    names: list[_Span] = []
    for span in _names(clean, relations):
        parent = _PARENT_NAMES.get(span.key.lower())
        if parent:
            keys.append(_key("r", f"{owner}:{parent}"))
            continue
        name = _Span(_key("n", span.key), span.start, span.end)
        if not any(name.key[2:] in title for title in titles):
            names.append(name)
            keys.append(name.key)
            keys.extend(name_words(name.key))
    keys.extend(_aliases(clean, names, relations))
    keys.extend(_dates(clean))
    seen: dict[str, None] = {}
    for key in keys:
        if len(key) > 2 and key not in seen:
            seen[key] = None
    return list(seen)[:MAX_KEYS]
