"""Which people a text names, and whether two texts name the same ones.

A person is named by a word of a group (:data:`~adk_memory_kit.text.people.PERSON_GROUP`:
"mum" / "mother") or by a role (:data:`ROLE_WORDS`), with the qualifier said right before it
("my ex-wife", "my late dad", "my mother-in-law"): two people of one group named with
qualifiers that cannot be one person are two people. Used by the update check
(:mod:`.update_subject`) and the forget matcher (:mod:`.forget_assessment`).
"""

from __future__ import annotations

import re

from adk_memory_kit.text.people import PERSON_GROUP
from adk_memory_kit.text.signals import words

_PERSON = PERSON_GROUP


def plain_word(word: str) -> str:
    """A word without its possessive or contraction ("mum's" -> "mum")."""
    return word.split("'")[0]


#: Words naming someone by their role rather than by kinship: a qualifier before them ("my
#: former boss") tells two people apart just as it does for the kin of :data:`PEOPLE_GROUPS`.
ROLE_WORDS = frozenset(
    "boss manager landlord landlady tenant teacher tutor doctor therapist coach trainer "
    "mentor employer".split()
)
#: The words right before a person that say which one ("my ex-wife" is not "my current
#: wife"), each with its qualifier: "ex" (ex, former, previous), "late", "step", "now"
#: (current, new, present: said of the present one), "old" (either: "my old boss" is a
#: former one, "my old friend" a long-time one).
_QUALIFIERS = {
    "ex": "ex",
    "former": "ex",
    "previous": "ex",
    "late": "late",
    "step": "step",
    "current": "now",
    "new": "now",
    "present": "now",
    "old": "old",
}
#: The people a bare "ex" can be; they also stand for each other when no qualifier is said
#: ("my wife" / "My fiancee Anna ...": the same person, told before the wedding).
_ROMANTIC = ("wife", "husband", "partner", "girlfriend", "boyfriend", "fiance")
#: A group naming several people of other groups ("my parents" are "my mum" and "my dad").
_MEMBERS = {
    "parents": {"mum", "dad"},
    "kid": {"son", "daughter"},
    "sibling": {"brother", "sister"},
    "grandparents": {"grandmother", "grandfather"},
    **{group: set(_ROMANTIC) for group in _ROMANTIC},
}
_QUALIFIED_TOKEN = re.compile(
    r"[^\W_]+(?:['\u2019][^\W_]+)?(?:-[^\W_]+(?:['\u2019][^\W_]+)?)*|[^\w\s]"
)
#: what follows "in law" when it is not the in-law ("my son in law school")
_NOT_IN_LAW = frozenset("school firm student students degree course class exams practice".split())
_OWNERS = frozenset(("my", "our", "the", "his", "her", "their", "your"))
#: the people of a text are read from its first this many characters (a memory or request
#: naming someone does so early; a long text costs no more than this)
MAX_PEOPLE_CHARS = 1000


def _person_group(word: str) -> tuple[str, str] | None:
    """(group, qualifier) of a single word naming a person ("stepdad" -> ("dad", "step"))."""
    word = plain_word(word.replace("\u2019", "'"))
    if word.startswith("step") and word[4:] in _PERSON:  # stepdad, stepmother, stepson ...
        return _PERSON[word[4:]], "step"
    if word in _PERSON:
        return _PERSON[word], ""
    if word in ROLE_WORDS:
        return word, ""
    return None


def qualified_people(text: str) -> dict[str, set[str]]:
    """The people ``text`` names, each group with the qualifiers it is named with (see
    :data:`_QUALIFIERS`; "" when none is said, "in-law" for "mother-in-law"): "My
    mother-in-law ..." -> {"mum": {"in-law"}}; "my ex" / "my exes" alone -> "ex" for every
    romantic group. A qualifier counts only right before the person ("my ex-wife", "my
    late dad"; not "my ex-army husband" nor "too late, mum said"), or one word before it
    in "former business partner"."""
    tokens = _QUALIFIED_TOKEN.findall(text[:MAX_PEOPLE_CHARS].lower())
    out: dict[str, set[str]] = {}
    for i, token in enumerate(tokens):
        parts = token.split("-")
        previous = tokens[i - 1] if i else ""
        if plain_word(token.replace("\u2019", "'")) in ("ex", "exes") and previous in _OWNERS:
            for group in _ROMANTIC:  # "my ex" / "my ex's address" / "all my exes"
                out.setdefault(_PERSON[group], set()).add("ex")
            continue
        if parts[-2:] in (["in", "law"], ["in", "law's"]):
            found = _person_group(parts[-3]) if len(parts) > 2 else None
            if found is not None:
                out.setdefault(found[0], set()).add("in-law")
            continue
        found = _person_group(parts[-1])
        if found is None:
            continue
        group, qualifier = found
        if group == _PERSON["kid"] and previous in ("a", "an", "another"):
            continue  # "trying for a baby", "want another child": hoped for, nobody yet
        if len(parts) > 1 and parts[-2] in _QUALIFIERS:  # "ex-wife", "step-sister"
            qualifier = qualifier or _QUALIFIERS[parts[-2]]
        after = tokens[i + 1 : i + 4]
        if after[:2] in (["in", "law"], ["in", "law's"]) and (
            len(after) < 3 or after[2] not in _NOT_IN_LAW
        ):
            qualifier = "in-law"  # "my mother in law"
        elif not qualifier and previous in _QUALIFIERS:
            qualifier = _QUALIFIERS[previous]
        elif not qualifier and previous == "business" and i > 1 and tokens[i - 2] in _QUALIFIERS:
            qualifier = _QUALIFIERS[tokens[i - 2]]
        out.setdefault(group, set()).add(qualifier)
    return out


#: A memory saying the relationship ended: its bare "wife" or "dad" is the ex or the late one.
_ENDED = re.compile(
    r"\b(?:passed away|died|dead|divorc\w*|broke up|split up|separated|dumped|left me)\b",
    re.IGNORECASE,
)


def _fit(wanted: str, held: str, ended: bool) -> str:
    """How a person named with qualifier ``wanted`` fits one a text names with ``held``:
    "same", "unsure" (a bare word may predate a change: "My boyfriend works at a bank",
    stored before the break-up, may be the ex-boyfriend; unless the text says it ended) or
    "other". "now" (said of the present one) never fits "ex" or "late"; "old" fits either;
    "step" and "in-law" fit only themselves."""
    if wanted == held or {wanted, held} <= {"", "now"}:
        return "same"
    if "old" in (wanted, held):
        return "other" if {wanted, held} & {"step", "in-law"} else "same"
    if (wanted in ("ex", "late") and held == "") or (wanted == "" and held == "late"):
        return "same" if ended else "unsure"
    return "other"


def _group_fit(one: dict[str, set[str]], other: dict[str, set[str]], ended: bool) -> str:
    """The worst fit over the groups both name, each group's best: "other", "unsure" or
    "same" ("same" too when no group is named by both)."""
    verdicts = set()
    for group in one.keys() & other.keys():
        fits = {_fit(w, h, ended) for w in one[group] for h in other[group]}
        verdicts.add("same" if "same" in fits else "unsure" if "unsure" in fits else "other")
    return "other" if "other" in verdicts else "unsure" if "unsure" in verdicts else "same"


def _ended(first: str, second: str) -> bool:
    return bool(_ENDED.search(second[:MAX_PEOPLE_CHARS]) or _ENDED.search(first[:MAX_PEOPLE_CHARS]))


def person_fit(first: str, second: str) -> str:
    """How the people ``first`` names fit those of ``second`` named by the same word:
    "other" when a group of both is named only with qualifiers that cannot be one person
    ("my ex-wife" / "My current wife ...", "my mother-in-law" / "My mother ...") and no name
    is shared; "unsure" when the best fit is a bare word that may predate a change (see
    :func:`_fit`); else "same" (also when no group is named by both)."""
    fit = _group_fit(qualified_people(first), qualified_people(second), _ended(first, second))
    return "same" if fit == "other" and _share_a_name(first, second) else fit


def qualifiers_differ(first: str, second: str) -> bool:
    """Whether the two texts name a person of the same group only with qualifiers that
    cannot be one person, and share no name (:func:`person_fit` is "other")."""
    return person_fit(first, second) == "other"


_CAPITALISED = re.compile(r"(?<![\w'\u2019])[^\W\d_][\w'\u2019-]*")
_OPENERS = frozenset(
    ("my", "our", "the", "i", "i'm", "please", "forget", "delete", "remove", "erase", "wipe")
)


def _share_a_name(first: str, second: str) -> bool:
    """Whether a capitalised word of ``first`` (a name: "José", "O'Brien", "McKenzie") is in
    ``second`` too, possessive or not."""

    def bare(word: str) -> str:
        return re.sub(r"['\u2019]s$", "", word).lower()

    names = {bare(w) for w in _CAPITALISED.findall(first) if w[0].isupper()}
    names -= _OPENERS | set(_QUALIFIERS) | set(_PERSON)
    return bool(names & {bare(w) for w in _CAPITALISED.findall(second)})


def _covers(group: str) -> set[str]:
    return {group, *_MEMBERS.get(group, ())}


_THROUGH = re.compile(r"[^\W\d_]+['\u2019]s?\s+[^\W\d_]+")


def _through_someone(text: str) -> bool:
    """Whether ``text`` names a relative through another ("My wife's mum", "my dad's wife")."""
    for match in _THROUGH.finditer(text[:MAX_PEOPLE_CHARS].lower()):
        owner, person = re.split(r"['\u2019]s?\s+", match.group(0), maxsplit=1)
        if _person_group(owner) is not None and _person_group(person) is not None:
            return True
    return False


def relation(subject: str, memory: str) -> str:
    """Whether ``memory`` is about the people ``subject`` names: "other" (someone else),
    "unsure" (a bare word that may predate a change: "my ex-boyfriend" / "My boyfriend ...",
    :func:`_fit`) or "same" (also when it cannot tell).

    It is "other" when it names a person of the subject only with a qualifier that cannot be
    the same person ("my ex-wife" / "My current wife ...", "my mother-in-law" / "My mother
    ...", "my wife" / "My ex-wife's ..."), or when both name kin or friends
    (:data:`PEOPLE_GROUPS`) but none in common ("my step-sister" / "My brother lives in
    Toronto"; "my parents" covers "my mum", partners cover each other). A shared name (any
    letters) makes it "same"; a relative named through another ("My wife's mum") or a memory
    naming no one is not decided here ("same")."""
    wanted = qualified_people(subject)
    if not wanted or _share_a_name(subject, memory):
        return "same"
    held = qualified_people(memory)
    fit = _group_fit(wanted, held, _ended(subject, memory))
    if fit != "same":
        return fit
    kin = {g for g in wanted if g not in ROLE_WORDS}
    named = {g for g in held if g not in ROLE_WORDS}
    if not kin or not named or _through_someone(memory):
        return "same"
    wide = set().union(*(_covers(g) for g in kin))
    disjoint = not any(g in wide or kin & _covers(g) for g in named)
    return "other" if disjoint else "same"


def someone_else(subject: str, memory: str) -> bool:
    """Whether ``memory`` is about someone other than the people ``subject`` names
    (:func:`relation` is "other")."""
    return relation(subject, memory) == "other"


def person_words(text: str, person: str) -> list[str]:
    return [plain_word(w) for w in words(text) if _PERSON.get(plain_word(w)) == person]


#: Words before a person that make them the object of the fact, not who it is about ("the
#: budgies went to my niece", "I moved in with my partner").
_OBJECT_OF = frozenset(("to", "with", "for", "from", "by"))
_DETERMINERS = frozenset(("my", "our", "the", "his", "her", "their"))


def objects(text: str) -> set[str]:
    """The people ``text`` names only as an object ("... went to my niece" -> {"niece"})."""
    tokens = [plain_word(w) for w in words(text)]
    out: set[str] = set()
    subjects: set[str] = set()
    for i, word in enumerate(tokens):
        person = _PERSON.get(word)
        if person is None:
            continue
        before = tokens[max(0, i - 2) : i]
        if before[-1:] and (
            before[-1] in _OBJECT_OF
            or (before[-1] in _DETERMINERS and before[:1] in ([p] for p in _OBJECT_OF))
        ):
            out.add(person)
        else:
            subjects.add(person)
    return out - subjects
