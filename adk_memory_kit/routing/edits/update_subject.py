"""Whether a stored memory is about the same subject as a fact that replaces an earlier one.

A fact flagged as an update ("I switched to Monzo") supersedes an old memory only when both
are about the same thing; a plain fact wrongly flagged must then supersede nothing unrelated.
Cosine similarity alone cannot tell ("I take Italian lessons" and "I learn Spanish" are as
close as a job and the job that replaced it), so :class:`SubjectCheck` asks three things of a
memory, each decided with the MiniLM embedder where words differ:

* **the same people**: a person the memory is about ("My daughter's dentist ...", "My cousin
  volunteers ...") is named by the new fact too (a word of the same group, :data:`PEOPLE_GROUPS`:
  "mum" / "mother", or the name the memory gives them), and the other way round ("My wife
  drives ..." does not replace "I drive ...");
* **the same slot**: a memory that opens "my X" / "our X" ("My hairdresser is Sam") has X, or
  a word at least ``word_similarity`` close to it ("haircuts"), in the new fact, or shares a
  name with it ("Our dog Pepper ..." / "Pepper passed away");
* **nothing added**: a fact saying it adds ("We also have a parrot", "... too") replaces
  nothing;
* **close enough**: cosine at least ``min_similarity`` (with a shared content word) or at
  least ``unshared_similarity`` (without one).

Thresholds are from the tune split of ``tests/routing/data/edits.jsonl`` only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from adk_memory_kit.embedders.base import checked_embed
from adk_memory_kit.memory.hygiene import MAX_TAGS
from adk_memory_kit.routing.edits.named_people import (
    objects,
    person_words,
    plain_word,
    qualifiers_differ,
)
from adk_memory_kit.text.people import PEOPLE, PERSON_GROUP, people
from adk_memory_kit.text.signals import content_stems, words

_PERSON = PERSON_GROUP

# words that say a change, not what changed: never the shared word that ties two facts
_CHANGE = content_stems(
    "now anymore longer instead these days used changed change new moved switched since "
    "stopped sold left quit died passed finished gone correction update actually replaced "
    "lately currently old previous former first favourite really also just still last"
)
# words that rank one of a kind without making it another kind ("my main client" / "my
# biggest client")
_RANK = content_stems(
    "main big bigger biggest best better closest close dear dearest usual regular primary top "
    "preferred go-to oldest largest most"
)
_NAME = re.compile(r"(?<!^)(?<![.!?] )\b(?!(?:Dr|Mr|Mrs|Ms|Miss|Prof|St)\b)[A-Z][A-Za-z]+\b")
# a fact that adds to what the user has ("We also have a parrot") replaces nothing
_ADDS = re.compile(
    r"\b(?:also|as well|another|in addition)\b|\btoo(?:[.!]*\s*$|\s*[,;:!?]|\s+[-\u2013])",
    re.IGNORECASE,
)
#: how many words after a person or slot word a name is taken to name it ("my brother Paul")
NAME_WINDOW = 4


def _unit(vectors: Any) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    return array / np.clip(np.linalg.norm(array, axis=-1, keepdims=True), 1e-12, None)


def slot(text: str) -> str | None:
    """The head of a memory opening "my X" / "our X" that is not a person ("My hairdresser
    is Sam" -> "hairdresser"; "My favourite film ..." -> "film"); else ``None``."""
    tokens = words(text)
    if not tokens or tokens[0] not in ("my", "our"):
        return None
    for token in tokens[1:4]:
        word = plain_word(token)
        if word in PEOPLE:
            return None
        if content_stems(word) - _CHANGE:
            return word
    return None


def inner_slot(text: str) -> str | None:
    """The slot of the first "my X is ..." / "our X are ..." inside ``text`` ("I got married
    and my surname is now ..." -> "surname"; not "after my provider messed up"); ``None``
    when there is none."""
    match = re.search(
        r"\b(?:my|our)\s+(?:[\w'-]+\s+){1,3}?(?:is|are|was|were|'s)\b.*", text, re.IGNORECASE
    )
    return slot(match.group(0)) if match else None


_COPULA = frozenset(("is", "are", "was", "were", "has", "have"))


def slot_words(text: str) -> list[str]:
    """The words naming a memory's slot: its head (:func:`slot`) and, in "my A B is ...", the
    second word too ("My phone number is ..." -> ["phone", "number"])."""
    head = slot(text)
    if head is None:
        return []
    tokens = [plain_word(w) for w in words(text)]
    i = tokens.index(head)
    after = tokens[i + 1 : i + 3]
    if len(after) == 2 and after[1] in _COPULA and content_stems(after[0]) - _CHANGE:
        if after[0] not in names(text) and after[0] not in PEOPLE:
            return [head, after[0]]
    return [head]


_CLAUSE_END = re.compile(r"[,;:!?]|\s[-\u2013]\s|\.\s")


def first_clause(text: str) -> str:
    """``text`` up to its first clause break (a comma, a dash, a sentence end)."""
    return _CLAUSE_END.split(text, maxsplit=1)[0]


def names(text: str) -> set[str]:
    """Capitalised words inside ``text`` (not its first word): names of pets, people, places."""
    return {m.group(0).lower() for m in _NAME.finditer(text)}


def names_near(text: str, anchor: str) -> set[str]:
    """The names at most :data:`NAME_WINDOW` words after ``anchor``, a name of several words
    the window reaches taken whole ("Our car is a red Fiat Panda", "car" -> {"fiat",
    "panda"}; in "My gym is the one by the Leeds office", "Leeds" is too far)."""
    tokens = [plain_word(w) for w in words(text)]
    named = names(text)
    out: set[str] = set()
    for i, token in enumerate(tokens):
        if token != anchor:
            continue
        end = i + 1 + NAME_WINDOW
        while end < len(tokens) and tokens[end - 1] in named and tokens[end] in named:
            end += 1  # a name the window reaches is taken whole ("... a red Fiat Panda")
        out |= {t for t in tokens[i + 1 : end] if t in named}
    return out


def _acronyms(text: str) -> set[str]:
    """The all-capital words of ``text``, lowered ("GP", "NHS"): never a person's name."""
    return {w.lower() for w in re.findall(r"\b[A-Z]{2,}\b", text)}


_CALLED = frozenset(("called", "named", "name"))
_NAMING = _CALLED | {"is", "was"}


def person_name(text: str, word: str) -> set[str]:
    """The name ``text`` gives the person ``word`` names: right after it ("my brother Paul",
    "my partner, called Sam") or right before it ("Paul, my brother"); a capitalised word
    further on is as often a language or a place ("My partner speaks fluent Portuguese")."""
    tokens = [plain_word(w) for w in words(text)]
    named = names(text) - _acronyms(text)
    out: set[str] = set()
    for i, token in enumerate(tokens):
        if token != word:
            continue
        start = i + 3 if tokens[i + 1 : i + 3] == ["in", "law"] else i + 1  # "father-in-law"
        after = tokens[start : start + 3]
        if after and after[0] in named:
            out.add(after[0])
        else:  # "my partner is called Marco", "my son's name is Leo", "my wife, named Ana"
            for k, token_after in enumerate(after):
                if token_after in named:
                    if set(after[:k]) & _CALLED and set(after[:k]) <= _NAMING:
                        out.add(token_after)
                    break
        if i >= 2 and tokens[i - 1] in ("my", "our") and tokens[i - 2] in named:
            out.add(tokens[i - 2])
    return out


def people_fill_slot(new: str, memory: str) -> bool:
    """Whether the people of ``memory`` are the value of its slot, which ``new`` names and
    fills anew ("My emergency contact is my brother Paul" / "My wife is my emergency contact
    now"): every person of the memory comes after its slot word, the new fact holds that
    word, and no person of the new fact owns something there ("my wife's emergency contact")."""
    head = slot(memory)
    said = people(memory)
    if head is None or not said or not (content_stems(head) & content_stems(new)):
        return False
    tokens = [plain_word(w) for w in words(memory)]
    after = set(tokens[tokens.index(head) + 1 :]) if head in tokens else set()
    if not all(any(w in after for w in PEOPLE if _PERSON[w] == p) for p in said):
        return False
    return not any(_PERSON.get(plain_word(w)) and w.endswith(("'s", "s'")) for w in words(new))


#: Where the user lives, said in the words a move is said in ("We've moved to Bath" / "I live
#: in Bristol"): MiniLM puts the two apart (two place names), and "moved" alone is a change
#: word that ties nothing (:data:`_CHANGE`).
_DWELLING = (
    r"(?:flat|house|home|cottage|bungalow|apartment|village|town|city|place|terrace|"
    r"terraced house|semi|studio|farm|houseboat|countryside|coast|suburbs)"
)
_RESIDENCE = re.compile(
    r"\b(?:i|we)(?:'ve| have|'re| are)?\s+(?:just\s+|finally\s+|now\s+|still\s+)?(?:"
    r"live[s]?\b|living\b|"
    r"(?:moved|moving|relocated|relocating)\s+(?:(?:to|into)\s+(?:(?-i:[A-Z])|(?:a|an|the|"
    r"our|my)\s+(?:\w+\s+){0,2}?" + _DWELLING + r"\b)|house\b|home\b|abroad\b|"
    r"back\s+home\b|out\s+of\s+(?:town|the\s+city|london)\b))"
    r"|\b(?:my|our) (?:home )?address\b|\bnew (?:home )?address\b",
    re.IGNORECASE,
)


def same_residence(new: str, memory: str) -> bool:
    """Whether both say where the user lives (or moved to): the same subject, whatever the
    places ("We've moved to Bath" / "I live in Bristol"; not "My sister lives ...")."""
    return bool(_RESIDENCE.search(new) and _RESIDENCE.search(memory))


def adds(text: str) -> bool:
    """Whether a fact adds to what the user has rather than replacing it ("also", "too")."""
    return _ADDS.search(text) is not None


def distinct_stems(text: str) -> set[str]:
    """The content stems that can tie two facts to one subject: no word of a change, and no
    bare number (an age or a year shared by "I was 19 when I moved" and "I was arrested at
    19" is no subject)."""
    return {s for s in content_stems(text) - _CHANGE if not s.isdigit()}


#: At most this many subject words a replacement inherits (:func:`subject_keys`).
MAX_SUBJECT_KEYS = 6
#: Longer words are not inherited (no word of a subject is this long; the store caps a tag).
MAX_KEY_CHARS = 40
_NOT_A_KEY = re.compile(r"\d|^redacted$")
_OPENING_NAME = re.compile(r"\s*([A-Z][a-z]+[A-Z]?[A-Za-z]*)\b(?!')")


def subject_keys(old: str, new: str, tags: Sequence[str] = ()) -> list[str]:
    """The index keys a fact replacing ``old`` inherits: ``old``'s tags and its content words
    that ``new`` does not hold (not names, people or change words; at most
    :data:`MAX_SUBJECT_KEYS` of them, the store's ``MAX_TAGS`` in all), so a question the old
    fact answered ("What is the user reading?" for "I'm reading Dune") still finds the fact
    that replaced it ("Finished Dune, on Foundation now")."""
    held = content_stems(new) | _CHANGE
    named = names(old)
    opening = _OPENING_NAME.match(old)
    if opening:  # a name as the first word ("Monzo is my bank") is a value too
        named.add(opening.group(1).lower())
    keys: list[str] = []
    # whom the old fact is about stays a key when the new one names them by the old one's
    # name and brings in no one else ("My boyfriend Jake is a chef" / "jake quit, he's a
    # pastry chef now": "boyfriend")
    same_person = bool(named & {plain_word(w) for w in words(new)})
    drop_people = not same_person or bool(people(new) - people(old))
    for token in words(old):
        word = plain_word(token)
        stems = content_stems(word)
        if not stems or stems <= held or word in named or word in keys:
            continue
        if word in PEOPLE and drop_people:
            continue
        if _NOT_A_KEY.search(word) or len(word) > MAX_KEY_CHARS:
            continue  # the retired value (numbers, ids, a redaction mark) never becomes a key
        keys.append(word)
    out = list(dict.fromkeys(str(t) for t in tags if isinstance(t, str) and t.strip()))
    return (out + [k for k in keys[:MAX_SUBJECT_KEYS] if k not in out])[:MAX_TAGS]


@dataclass
class SubjectCheck:
    """Decides whether memories are about the subject of a new fact (module docstring)."""

    # tune: true pairs sharing a content word reach 0.31; no true pair shares no word below 0.43
    min_similarity: float = 0.3
    unshared_similarity: float = 0.42
    # a word this close names the same person or slot (tune: mum/mother, boss/manager)
    word_similarity: float = 0.55

    async def same_subject(
        self, embedder: Any, new: str, memories: Sequence[str]
    ) -> list[tuple[bool, float]]:
        """For each memory: whether it is about the subject of ``new``, and its cosine."""
        if not memories:
            return []
        if adds(new):
            return [(False, 0.0) for _ in memories]
        vectors = _unit(await checked_embed(embedder, [new, *memories]))
        cosines = vectors[1:] @ vectors[0]
        new_words = sorted({plain_word(w) for w in words(new)} - {""})
        new_words = [w for w in new_words if content_stems(w)]
        wanted = {h for text in memories for h in slot_words(text)}
        close = await self._closeness(embedder, sorted(wanted), new_words, memories)
        out = []
        for text, cosine in zip(memories, cosines.tolist(), strict=True):
            ok = (self._people_agree(new, text) or people_fill_slot(new, text)) and (
                self._slot_agrees(new, text, close)
            )
            shared = bool(distinct_stems(new) & distinct_stems(text)) or same_residence(new, text)
            bar = self.min_similarity if shared else self.unshared_similarity
            out.append((ok and cosine >= bar, float(cosine)))
        return out

    async def _closeness(
        self, embedder: Any, wanted: list[str], new_words: list[str], memories: Sequence[str]
    ) -> dict[tuple[str, str], float]:
        """Cosine of each wanted word to each word of the new fact and of the memories."""
        vocab = sorted(
            set(new_words) | {plain_word(w) for t in memories for w in words(t) if content_stems(w)}
        )
        if not wanted or not vocab:
            return {}
        vectors = _unit(await checked_embed(embedder, [*wanted, *vocab]))
        sims = vectors[: len(wanted)] @ vectors[len(wanted) :].T
        return {
            (w, v): float(sims[i, j]) for i, w in enumerate(wanted) for j, v in enumerate(vocab)
        }

    def _named(self, word: str, text: str, close: dict[tuple[str, str], float]) -> bool:
        """Whether ``text`` names ``word`` (its stem, or a word at least ``word_similarity``)."""
        if content_stems(word) & content_stems(text):
            return True
        return any(
            close.get((word, plain_word(w)), 0.0) >= self.word_similarity for w in words(text)
        )

    @staticmethod
    def _people_agree(new: str, memory: str) -> bool:
        """Each person of either fact is in the other (the same word group: "mum" and
        "mother"), or named there by the name the fact gives them ("my brother Paul" /
        "Paul")."""
        if qualifiers_differ(new, memory):  # "my ex-wife ..." does not replace "my wife ..."
            return False
        said = {"new": people(new) - objects(new), "memory": people(memory)}
        # someone the new fact brings in after its first clause is incidental ("... so I'm on
        # an iPhone now, my sister gave me her old one"): the memory need not name them
        leading = said["new"] & people(first_clause(new))

        def named(person: str, text: str, other: str) -> bool:
            if person in said[other]:
                return True
            near: set[str] = set()
            for word in person_words(text, person):
                near |= person_name(text, word)
            return bool(near & {plain_word(w) for w in words(new if other == "new" else memory)})

        return all(named(p, memory, "new") for p in said["memory"]) and all(
            named(p, new, "memory") for p in leading
        )

    def _other_kind_of(
        self, heads: Sequence[str], new: str, close: dict[tuple[str, str], float]
    ) -> bool:
        """Whether the new fact qualifies the memory's second slot word otherwise ("a savings
        account" is not "my checking account"; "my new number" is "my phone number")."""
        if content_stems(heads[0]) <= _RANK:
            return False
        tokens = [plain_word(w) for w in words(new)]
        before = [tokens[i - 1] for i in range(1, len(tokens)) if tokens[i] == heads[1]]
        qualifiers = [w for w in before if content_stems(w) - _CHANGE - _RANK]
        return bool(qualifiers) and not any(self._named(heads[0], w, close) for w in qualifiers)

    def _slot_agrees(self, new: str, memory: str, close: dict[tuple[str, str], float]) -> bool:
        """The new fact names the memory's slot: its head, or its second word when the new
        fact opens no slot of its own or opens that one ("New number: ..." or "My new number
        is ..." for "My phone number is ..."; "My account number is ..." does not)."""
        heads = slot_words(memory)
        if not heads or self._named(heads[0], new, close):
            return True
        if len(heads) > 1 and self._other_kind_of(heads, new, close):
            return False  # "a savings account with Chase" / "my checking account is with Chase"
        own = slot(new) or inner_slot(new)
        if len(heads) > 1 and own in (None, heads[1]) and self._named(heads[1], new, close):
            return True
        return bool(names_near(memory, heads[0]) & {plain_word(w) for w in words(new)})
