"""Health judged by meaning: a multilingual classifier reads every sentence.

:class:`MeaningHealthDetector` is the kit's health detector. For each sentence (see
:func:`~adk_memory_kit.sensitive.health_vocab.sentences`) the health head
(:mod:`~adk_memory_kit.sensitive.health_model`: USE multilingual v3 and character n-grams,
trained on six independent writers in about eighty languages and on the first-read
corpora) gives P(the sentence reveals someone's health); at or above the threshold of the
sensitivity in force (:func:`~adk_memory_kit.sensitive.health_model.thresholds`) the
sentence is health. Negation ("no allergies"), other people's jobs ("my sister is a
cardiologist"), general advice and figures of speech are the head's to read: its training
sentences hold them in every language. The bar is higher for a sentence with none of the
vocabularies' health words (``NO_TERM_THRESHOLD``), for an English sentence that names no
person (``NO_PERSON_THRESHOLD``), for one whose every health word is negated in any language
(``NEGATED_THRESHOLD``; :mod:`~adk_memory_kit.sensitive.negation`) and where another sense of
them is near (a book, a star
sign, a race, a server: ``OTHER_SENSE_THRESHOLD``). Three rules stay, all
cheap and all about harm:

* a bare word or value ("lactose", "insulin") states nobody's health: not judged;
* at ``strict``, a sentence with a health word that asks to keep it secret counts;
* the rule detector's hit (:class:`~adk_memory_kit.sensitive.health.HealthDetector`: a
  health word about a person, "someone allergic to nuts") counts unless the head is sure
  (``RULE_FLOOR``) the sentence is not about health; in an English sentence it always
  counts (the rules read English; the head, trained mostly on other languages, reads an
  extractor's "The user's health: asthma" low).

Findings span the sentence's health words (the vocabularies of
:mod:`~adk_memory_kit.sensitive.health_vocab`), or the whole sentence when it has none, so
a clause without one ("I'm vegan" in "I'm vegan and I have diabetes") stays usable.

Without the encoder (no ``[local]`` extra, or turned off) it fails closed at ``strict``: a
sentence with a health word, not every one negated, that names a person, is health; at
``balanced`` the rule detector (:class:`~adk_memory_kit.sensitive.health.HealthDetector`)
alone. Cost: one encoder call per sentence (about 3 ms on one CPU core; a recent sentence's
vector is cached), at most ``MODEL_MAX_SENTENCES`` of a text; texts over ``MODEL_MAX_CHARS``
are read by the rules alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from adk_memory_kit.sensitive.base import HEALTH, Finding
from adk_memory_kit.sensitive.health import _NEGATED, HealthDetector, _has_person
from adk_memory_kit.sensitive.health_model import health_probabilities, thresholds
from adk_memory_kit.sensitive.health_vocab import health_terms, sentences, transliterated_terms
from adk_memory_kit.sensitive.negation import negated
from adk_memory_kit.sensitive.scan import TextScan
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from adk_memory_kit.sensitive.settings import is_strict
from adk_memory_kit.text.language import likeliest_language

#: Texts longer than this are read by the rules alone, and at most this many sentences of a
#: text go to the head (bounds on its cost); the rest are decided as without the model.
MODEL_MAX_CHARS = 65_536
MODEL_MAX_SENTENCES = 32

#: A sentence with none of the vocabularies' health words needs this much of the head.
NO_TERM_THRESHOLD = 0.8
#: ... an English sentence that names no person ("a tropical depression is forming"); persons
#: are recognised in English only, so other languages are not held to it.
NO_PERSON_THRESHOLD = 0.6
#: The rule detector's hit (a health word about a person) counts unless the head is this sure
#: its sentence is not about health.
RULE_FLOOR = 0.03
#: ... one whose every health word is negated, in any language (:mod:`.negation`).
NEGATED_THRESHOLD = 0.5
#: ... one with another sense of health words near (a book, a star sign, a race, glasses).
OTHER_SENSE_THRESHOLD = 0.9


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


#: English function words: in a sentence of Latin letters they make it English.
_ENGLISH = frozenset(
    "a an the i you he she we they it is are was were be been am do does did have has had "
    "of to in on at for with from by about and or but not no my your his her our their me "
    "him them this that these those what when where who how if so as will would can could "
    "should just there here".split()
)
_ASCII_WORD = re.compile(r"[a-z']+")


def _english(sentence: str) -> bool:
    """Latin letters only and an English function word, or two in a sentence of more than
    six words ("The user's health: asthma" is English; a Spanish "no" alone in a long
    sentence is not enough)."""
    words = _ASCII_WORD.findall(sentence.lower())
    need = 1 if len(words) <= 6 else 2
    return sentence.isascii() and len(_ENGLISH.intersection(words)) >= need


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
        if len(text) > MODEL_MAX_CHARS:
            return self.rules.find_in(scan)
        spans = [(a, b) for a, b in sentences(text) if _stated(text[a:b])]
        if not spans:
            return []
        terms = health_terms(text)
        judged, rest = spans[:MODEL_MAX_SENTENCES], spans[MODEL_MAX_SENTENCES:]
        probs = health_probabilities([text[a:b] for a, b in judged])
        if probs is None:  # no model: every sentence is decided without it
            judged, rest, probs = [], spans, []
        strict = is_strict()
        bar = thresholds()[0 if strict else 1]
        # a drug named in a language the head's encoder was not trained on, spelled as the
        # drug's Latin name ("эналаприл" in Tajik, "ኢንሱሊን" in Tigrinya): at strict it counts
        # whatever the head says (fail closed)
        spelled = transliterated_terms(text, drugs_only=True) if strict else []
        found: list[Finding] = []
        rules_in: list[tuple[int, int]] = []  # sentences whose rule hits count
        for (a, b), p in zip(judged, probs, strict=True):
            inside = [(x, y) for x, y in terms if a <= x < b]
            sentence = text[a:b]
            need = bar if inside else max(bar, NO_TERM_THRESHOLD)
            if _english(sentence) and not _has_person(sentence):
                need = max(need, NO_PERSON_THRESHOLD)
            if inside and all(negated(text, x, y) for x, y in inside):
                need = max(need, NEGATED_THRESHOLD)
            if _other_sense(sentence):
                need = max(need, OTHER_SENSE_THRESHOLD)
            named_drug = any(a <= x < b for x, _ in spelled)
            if named_drug and need < OTHER_SENSE_THRESHOLD and not _head_reads(sentence):
                if not all(negated(text, x, y) for x, y in inside):
                    need = 0.0
            if p >= need or (strict and inside and asks_secrecy(sentence)):
                found += [Finding(HEALTH, self.name, x, y) for x, y in inside] or [
                    Finding(HEALTH, self.name, a, b)
                ]
            elif need < OTHER_SENSE_THRESHOLD and (p >= RULE_FLOOR or _english(sentence)):
                rules_in.append((a, b))
        if rules_in:
            found += [
                f for f in self.rules.find_in(scan) if any(a <= f.start < b for a, b in rules_in)
            ]
        if rest:
            found += self._without_head(scan, rest, terms, strict)
        return found

    def _without_head(
        self,
        scan: TextScan,
        spans: list[tuple[int, int]],
        terms: list[tuple[int, int]],
        strict: bool,
    ) -> list[Finding]:
        """The rule detector's hits in ``spans``; at ``strict`` also each sentence with a
        health word, not every one negated, that names a person (fail closed)."""
        text = scan.text
        found = [f for f in self.rules.find_in(scan) if any(a <= f.start < b for a, b in spans)]
        if not strict:
            return found
        for a, b in spans:
            inside = [(x, y) for x, y in terms if a <= x < b]
            if not inside or not _has_person(text[a:b]):
                continue
            if all(_NEGATED.search(text[max(a, x - 60) : x]) for x, _ in inside):
                continue
            found += [Finding(HEALTH, self.name, x, y) for x, y in inside]
        return found


#: The languages USE multilingual v3 (the head's encoder) was trained on: in them the head's
#: verdict stands ("paracetamol and ibuprofen can be alternated" in Russian is advice).
_HEAD_LANGUAGES = frozenset("ar zh nl en fr de it ja ko pl pt es th tr ru".split())


def _head_reads(sentence: str) -> bool:
    return likeliest_language(sentence) in _HEAD_LANGUAGES


def _stated(sentence: str) -> bool:
    """Whether ``sentence`` is a statement, not a bare word or value ("lactose")."""
    return not _bare(sentence) or _has_person(sentence)
