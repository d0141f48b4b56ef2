"""Sentence-level text tests the write policy uses: filler, fact-less questions, overlap.

All of them are pure functions of the text, so every process that applies the policy (the
Runner's, the idle job's, ``reindex``) decides the same way.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from adk_memory_kit.text.sentences import split_sentences

__all__ = [
    "content_stems",
    "fingerprint",
    "is_filler",
    "is_factless_question",
    "overlap",
    "split_sentences",
    "strip_tags",
]

_TAG = re.compile(r"^\s*\[[^\]]{1,60}\]\s*")
#: A word in any script: letters and digits of any language ("você", "고양이", "मिट्ठू"),
#: with an English contraction or possessive kept on it.
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")

#: Words that alone make a sentence filler or an acknowledgement ("Thanks, that's all, bye!").
FILLER_WORDS = frozenset(
    """
    hi hello hey thanks thank you ok okay sure great cool nice noted got it yes yeah yep yup no
    nope please bye goodbye that that's thats s all alright right fine perfect awesome done
    cheers welcome good morning afternoon evening night see ya later wow haha lol oh ah hmm
    sounds will do understood of course absolutely indeed exactly true the a for so much very i
    see lovely excellent brilliant wonderful amazing fantastic glad to hear bye-bye take care
    again appreciate appreciated you're youre no problem sorry well then just anything else
    """.split()
)

_ACK = re.compile(
    r"^(?:(?:noted|got it|done|ok(?:ay)?|sure|understood|alright|certainly|of course)\b[ ,!.-]*)?"
    r"(?:i(?:'ve| have)?|i'll|i will)\s+"
    r"(?:saved|noted|recorded|updated|added|stored|remember(?:ed)?|keep|kept|note)\b[^.!?]{0,40}$",
    re.IGNORECASE,
)
_PLEASANTRY = re.compile(
    r"^(?:enjoy your \w+|have a (?:nice|good|great|lovely|wonderful) \w+|"
    r"(?:let me know|just let me know|tell me) if (?:you need|there'?s) anything(?: else)?|"
    r"how can i help(?: you)?(?: today)?|(?:is there )?anything else)\b",
    re.IGNORECASE,
)

#: A question carries a fact when the asker states something in it ("Since I'm flying from
#: LIS, ...?"), or names a number or a proper noun.
_FIRST_PERSON_STATEMENT = re.compile(
    r"\b(?:i|we)(?:'m| am|'ve| have|'d| had| was| were| got| went| bought| just| live| work"
    r"| moved| started| love| like| prefer| need)\b"
    r"|\b(?:my|our) \w+(?: \w+)? (?:is|was|are|were)\b",
    re.IGNORECASE,
)
_PROPER_NOUN = re.compile(r"(?<=[\w,;:] )(?!I\b)[A-Z][a-z]+")

STOPWORDS = frozenset(
    """
    a an the and or but if so of to in on at for from by with about as is are was were be been
    being am do does did have has had i me my mine we our ours you your yours he him his she her
    it its they them their this that these those there here what which who whom whose when
    where why how can could will would shall should may might must not no yes just also too very
    then than into onto over under up down out off again once all any some each few more most
    other such only own same s t don't i'm i've i'd i'll you're it's that's let's please
    """.split()
)


def strip_tags(sentence: str) -> str:
    """The sentence without a leading ``[tag]`` (e.g. ``[offline scripted model]``)."""
    return _TAG.sub("", sentence).strip()


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def is_filler(sentence: str) -> bool:
    """Whether ``sentence`` is filler or an acknowledgement, whoever says it."""
    text = strip_tags(sentence)
    tokens = words(text)
    if not tokens:
        return True
    if all(t in FILLER_WORDS for t in tokens):
        return True
    bare = text.rstrip(".!? ")
    return bool(_ACK.match(bare) or (_PLEASANTRY.match(bare) and len(tokens) <= 8))


def is_factless_question(sentence: str) -> bool:
    """A question that states nothing: no first-person statement, number or proper noun."""
    text = strip_tags(sentence)
    if not text.rstrip().endswith("?"):
        return False
    if any(ch.isdigit() for ch in text):
        return False
    return not (_FIRST_PERSON_STATEMENT.search(text) or _PROPER_NOUN.search(text))


def stem(word: str) -> str:
    """A crude, stable stem: the first five letters (``delivery`` and ``deliver`` agree), a
    possessive left out first (``mum's`` and ``mum`` agree)."""
    return word.removesuffix("'s")[:5]


def content_stems(text: str) -> set[str]:
    """Stems of the content words of ``text`` (stopwords and filler removed)."""
    return {
        stem(w)
        for w in words(strip_tags(text))
        if w not in STOPWORDS and w not in FILLER_WORDS and len(w) > 1
    }


def fingerprint(stems: Iterable[str]) -> list[str]:
    """Short one-way hashes of ``stems``: what a recall record stores instead of text."""
    return sorted({hashlib.sha256(s.encode()).hexdigest()[:10] for s in stems})


def overlap(sentence_stems: set[str], reference: set[str]) -> float:
    """Fraction of the sentence's content stems found in ``reference`` (0 when it has none)."""
    if not sentence_stems:
        return 0.0
    return len(sentence_stems & reference) / len(sentence_stems)
