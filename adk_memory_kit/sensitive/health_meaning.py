"""Health judged by meaning: vocabularies pick the sentences, a classifier decides.

:class:`MeaningHealthDetector` is the kit's health detector. For each sentence (see
:func:`~adk_memory_kit.sensitive.health_vocab.sentences`):

1. *Pre-filter* (microseconds): a word from the drug, condition and care vocabularies or a
   clinical suffix (:mod:`~adk_memory_kit.sensitive.health_vocab`). Other sentences are not
   health and cost nothing more. (A lexical classifier was tried as a wider pre-filter: at
   the recall it needed it passed 80% of all sentences, so it was dropped.)
2. *Decision*: the MiniLM head's probability against the threshold of the sensitivity in
   force (``strict`` low, ``balanced`` higher; :mod:`~adk_memory_kit.sensitive.settings`).
   The bar is higher where another sense is near (a book, a star sign, a race, a server)
   and where no person is named; at ``strict`` the base threshold is halved for a sentence
   in another language (the English MiniLM's probabilities run low there). A sentence whose
   every health word is negated ("no allergies, no medication") is not health, and a
   practitioner's job ("my sister is a cardiologist") or a figure of speech ("a pregnant
   pause") is not a health word (:func:`~adk_memory_kit.sensitive.health_vocab.health_terms`).
3. The rule detector (:class:`~adk_memory_kit.sensitive.health.HealthDetector`: a term
   about a person) still counts in a sentence judged health, or with no raised bar where
   the head gives it at least ``RULE_FLOOR``.

Without the model (no ``[local]`` extra) it fails closed at ``strict``: a pre-filtered
sentence that names a person, or a rule hit, is health; at ``balanced`` rule hits only.
Findings span the health words of a sentence judged health (as the rule detector's did), so
a clause without one ("I'm vegan" in "I'm vegan and I have diabetes") stays usable. Cost:
the head runs only on pre-filtered sentences (about 10 ms each on one CPU core; a recent
sentence's verdict is cached).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from adk_memory_kit.sensitive.base import HEALTH, Finding
from adk_memory_kit.sensitive.health import _NEGATED, HealthDetector, _has_person
from adk_memory_kit.sensitive.health_model import (
    HEAD_THRESHOLD_BALANCED,
    HEAD_THRESHOLD_STRICT,
    health_probabilities,
)
from adk_memory_kit.sensitive.health_vocab import health_terms, sentences
from adk_memory_kit.sensitive.health_world import CARE_PLACES, head_cannot_read, world_terms
from adk_memory_kit.sensitive.scan import TextScan
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from adk_memory_kit.sensitive.settings import is_strict

#: A rule hit counts unless the head is this sure its sentence is not about health.
RULE_FLOOR = 0.08
#: ... on a sentence that names no person (terse notes: "Started sertraline Monday").
NO_PERSON_THRESHOLD = 0.6
#: ... on one with another sense of the words near (a book, a star sign, a race, glasses).
OTHER_SENSE_THRESHOLD = 0.9
#: Texts longer than this are read by the rules alone, and at most this many sentences of a
#: text go to the head (bounds on its cost); the rest are decided as without the model.
MODEL_MAX_CHARS = 65_536
MODEL_MAX_SENTENCES = 32


#: Another sense of health words near: media, star signs, sport, eyewear, stock, machines.
_OTHER_SENSE = re.compile(
    r"(?<![a-z])(?:zodiac|horoscope|astrolog\w*|star ?sign|(?:cancer|scorpio|virgo) season|"
    r"novel|book|film|movie|tv|show|series|episode|documentary|podcast|netflix|museum|"
    r"exhibit\w*|gallery|chapter|character|plot|reading|sunglasses|glasses|lenses|goggles|"
    r"race|rowing|swimming|stroke count|golf|tennis|sku|reorder|restock|inventory|in stock|"
    r"consignment|pod|node|server|cluster|container|deploy\w*|cron|endpoint|database|db|"
    r"charity|fundrais\w*|awareness|donat\w*|walk for|run for|news|article|board exams?|"
    r"syllabus|lecture|hírek\w*|gazeti\w*|noticias?|nachrichten|zeitung|journal|jornal|"
    r"giornale|uutis\w*|haber\w*|wiadomości|новин\w*|новост\w*|"
    r"surgery hours|(?:i'm|im|i am|she's|he's|she is|he is|a|an) (?:cancer|leo|virgo|gemini|"
    r"libra|scorpio|aries|taurus|pisces|capricorn|aquarius|sagittarius)(?! patient| survivor))"
    r"(?![a-z])"
)


#: The same senses in scripts without spaces or with glued articles (drama, film, novel, news).
_OTHER_SENSE_SCRIPTS = re.compile(
    "ドラマ|映画|小説|漫画|アニメ|ニュース|드라마|영화|소설|뉴스|웹툰|电视剧|电影|小说|新闻|"
    "مسلسل|فيلم|أخبار|اخبار|خبر|سریال|فیلم|رمان|סדרה|סרט|חדשות|ละคร|หนัง|ข่าว|"
    "नाटक|फिल्म|समाचार|নাটক|সিনেমা|খবর|படம்|செய்தி"
)


def _other_sense(sentence: str) -> bool:
    lower = sentence.lower()
    if _OTHER_SENSE.search(lower) is not None:
        return True
    return not lower.isascii() and _OTHER_SENSE_SCRIPTS.search(lower) is not None


#: Words of the six other languages: MiniLM reads them less well, so its bar is lower there.
_FOREIGN = re.compile(
    r"[\u00c0-\u024f\u3040-\u30ff\u3400-\u9fff]|(?<![a-z])(?:je|j'ai|mon|ma|les|des|est|"
    r"pas|une|el|la|los|las|una|por|para|estoy|tengo|mi|ich|mein|meine|und|der|die|das|ist|"
    r"nicht|não|meu|minha|tô|estou|sono|ho|il|che|mia|mio|della)(?![a-z])"
)
#: The factor on the head's threshold for a sentence in another language (at ``strict``).
FOREIGN_FACTOR = 0.5


#: English function words: a sentence of four words or more with none of them is not
#: English, whatever its script (Swahili, Tagalog, Finnish ...), and the head reads it less well.
_ENGLISH = frozenset(
    "a an the i you he she we they it is are was were be been am do does did have has had "
    "of to in on at for with from by about and or but not no my your his her our their me "
    "him them this that these those what when where who how if so as will would can could "
    "should just there here".split()
)
_ASCII_WORD = re.compile(r"[a-z']+")


def _foreign(sentence: str) -> bool:
    return _FOREIGN.search(sentence.lower()) is not None


def _not_english(sentence: str) -> bool:
    """Four words or more and no English function word: persons are named in English only,
    so the absence of one there says nothing."""
    words = _ASCII_WORD.findall(sentence.lower())
    return len(words) >= 4 and _ENGLISH.isdisjoint(words)


#: Scripts written without spaces between words: a sentence's length tells, not its spaces.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u9fff\uac00-\ud7af]")


def _bare(sentence: str) -> bool:
    """Whether ``sentence`` is a bare word or value ("lactose", "insulin"), not a statement."""
    if len(sentence.split()) >= 3:
        return False
    return len(_UNSPACED.findall(sentence)) < 6


@dataclass(frozen=True)
class MeaningHealthDetector:
    """Health by meaning (see the module docstring); findings span health words."""

    name: str = "health_terms"  # the name the health detector has always had
    kind: str = HEALTH
    rules: HealthDetector = field(default_factory=HealthDetector)

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        text = scan.text
        rule_hits = self.rules.find_in(scan)
        if len(text) > MODEL_MAX_CHARS:
            return rule_hits
        strict = is_strict()
        # sentence -> (the head's bar for it, its health words)
        picked: dict[tuple[int, int], tuple[float, list[tuple[int, int]]]] = {}
        all_terms = health_terms(text)  # one pass over the text, then bucketed by sentence
        if not all_terms:
            return []
        starts = [t[0] for t in all_terms]
        for a, b in sentences(text):
            lo, hi = bisect.bisect_left(starts, a), bisect.bisect_left(starts, b)
            if lo == hi:
                continue
            sentence = text[a:b]
            if _bare(sentence) and not _has_person(sentence):
                continue  # a bare word or value ("lactose", "insulin") states nobody's health
            if all(_NEGATED.search(text[max(a, x - 60) : x]) for x, _ in all_terms[lo:hi]):
                continue  # every health word negated: "no allergies, no medication"
            bar = 0.0
            if _other_sense(sentence):
                bar = OTHER_SENSE_THRESHOLD
            elif not _has_person(sentence) and not _foreign(sentence):
                # persons are named in English only: a sentence of another language whose
                # health word is of the multilingual table is not held to the no-person bar
                if not (_not_english(sentence) and world_terms(sentence)):
                    bar = NO_PERSON_THRESHOLD
            picked[(a, b)] = (bar, all_terms[lo:hi])
        if not picked:
            return []
        found: list[Finding] = []
        rules_in: list[tuple[int, int]] = []  # sentences whose rule hits count
        if strict:  # the vocabulary decides where the head cannot: fail closed
            for (a, b), (bar, terms) in list(picked.items()):
                sentence = text[a:b]
                unreadable = head_cannot_read(sentence)
                if not unreadable and not asks_secrecy(sentence):
                    continue  # the head decides
                del picked[(a, b)]
                if bar < OTHER_SENSE_THRESHOLD and not all(
                    text[x:y].lower() in CARE_PLACES for x, y in terms
                ):
                    found.extend(Finding(HEALTH, self.name, x, y) for x, y in terms)
                    rules_in.append((a, b))
                elif not unreadable:
                    picked[(a, b)] = (bar, terms)  # secrecy, but only a care place: the head
        items = list(picked.items())
        judged, unjudged = items[:MODEL_MAX_SENTENCES], items[MODEL_MAX_SENTENCES:]
        probs = health_probabilities([text[a:b] for (a, b), _ in judged]) if judged else []
        if probs is None:  # no model: every sentence is decided without it
            judged, unjudged, probs = [], items, []
        threshold = HEAD_THRESHOLD_STRICT if strict else HEAD_THRESHOLD_BALANCED
        for ((a, b), (bar, terms)), p in zip(judged, probs, strict=True):
            base = threshold
            if strict and bar == 0.0 and _foreign(text[a:b]):
                base *= FOREIGN_FACTOR
            if p >= max(base, bar):
                found.extend(Finding(HEALTH, self.name, x, y) for x, y in terms)
            if p >= max(base, bar) or (bar == 0.0 and p >= RULE_FLOOR):
                rules_in.append((a, b))
        for (a, b), (bar, terms) in unjudged:  # rules, and at strict any personal sentence
            if strict and bar == 0.0 and _has_person(text[a:b]):
                found.extend(Finding(HEALTH, self.name, x, y) for x, y in terms)
            rules_in.append((a, b))
        found += [f for f in rule_hits if any(a <= f.start < b for a, b in rules_in)]
        return found
