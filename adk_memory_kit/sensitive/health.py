"""Health terms, counted only when they are about a person's condition.

A term (a condition, a treatment, a medication word) is a finding when its sentence says it
is someone's ("I have asthma", "my son was diagnosed with autism", "she takes insulin") and
not a star sign, a book, an exhibition, a product or a research topic ("I'm a Cancer, born
in July", "prescription sunglasses", "a novel about dementia"). Negated mentions ("no
allergies") are not findings. Context is read from cue words in the same sentence only, so
the cost is linear.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import HEALTH, Finding, LiteralHeads, prefix_tree
from adk_memory_kit.sensitive.scan import TextScan, register_heads

_TERMS = (
    r"diagnos(?:is|es|ed)", r"cancer", r"tumou?rs?", r"chemo(?:therapy)?", r"diabet(?:es|ic)",
    r"insulin", r"anxiety(?: disorder)?", r"panic attacks?", r"bipolar", r"schizophreni\w*",
    r"adhd", r"autis(?:m|tic)", r"epilep(?:sy|tic)", r"asthma(?:tic)?", r"pregnan(?:t|cy)",
    r"miscarriage", r"abortion", r"hiv(?:-positive)?", r"hepatitis", r"dementia",
    r"alzheimer'?s", r"parkinson'?s", r"heart (?:attack|condition|failure)", r"stroke",
    r"high blood pressure", r"hypertension", r"medications?", r"prescriptions?",
    r"prescribed", r"antidepressants?", r"therapist", r"psychiatr\w*", r"rehab",
    r"addiction", r"allerg(?:y|ies|ic)", r"surgery", r"disability", r"chronic \w+",
    r"illness", r"medical condition", r"covid(?:-19)?", r"depression", r"depressed",
    r"multiple sclerosis", r"crohn'?s", r"celiac|coeliac", r"migraines?", r"arthritis",
    r"eating disorder", r"anorexia", r"bulimia", r"ptsd", r"ocd", r"lupus", r"leukemia|leukaemia",
    r"lymphoma", r"kidney (?:disease|failure|stones?)", r"dialysis", r"sertraline|prozac|"
    r"zoloft|xanax|lexapro|metformin|lithium|methadone|adderall|ritalin|chemo",
    r"STDs?", r"STIs?", r"AIDS", r"IVF", r"Diabetes|Krebs|Depressionen|Asthma",
)  # fmt: skip
_TERM = re.compile(r"(?:" + "|".join(_TERMS) + r")(?![\w-]|::)", re.IGNORECASE)
#: The acronyms count only in capitals ("aids", "std::vector", "sti" are not findings).
_CAPS_ONLY = frozenset({"stds", "std", "stis", "sti", "aids", "ocd", "ivf", "ptsd", "adhd"})

#: Someone's own condition: a person, then a verb of having, being or treating.
_PERSONAL_WORDS = (
    "i|i'm|i've|i'd|im|me|my|mine|myself|we|our|he|she|his|her|him|they|their|"
    "mum|mom|dad|son|daughter|wife|husband|partner|brother|sister|grandma|grandpa|"
    "grandmother|grandfather|father|mother|kid|kids|child|friend|boss|aunt|uncle|patient|"
    "someone|somebody|user|user's|customer|customer's|client|client's|guest|guest's|"
    "traveller|traveler|passenger|member|"
    "ich|mein|meine|je|j'ai|mon|ma|yo|mi"
)
#: The words as a prefix tree (the same strings, read a branch per character, not a word at
#: a time: a window is searched several times faster).
_PERSONAL = re.compile(
    r"(?<![\w'])" + prefix_tree(_PERSONAL_WORDS.split("|")) + r"(?![\w'])", re.IGNORECASE
)
_PERSONAL_SET = frozenset(_PERSONAL_WORDS.split("|"))
#: A whole run of ASCII word characters and apostrophes that is one of the words, in lower case.
_PERSONAL_ASCII = re.compile(
    r"(?<![a-z0-9_'])(?:" + prefix_tree(_PERSONAL_WORDS.split("|")) + r")(?![a-z0-9_'])"
)
_PERSONAL_LONGEST = max(map(len, _PERSONAL_SET))
_WORD = re.compile(r"[\w']+")


def _has_person(sentence: str) -> bool:
    """Whether ``_PERSONAL`` finds a word in ``sentence``; what it finds are whole runs of
    word characters and apostrophes, so the runs are looked up in a set (an ASCII run
    equals a word ignoring case exactly when its lower case does; any other run is left
    to the pattern). An ASCII sentence is lower-cased and searched for a run that is one
    of the words (the tree's search stops at the first)."""
    if sentence.isascii():
        return _PERSONAL_ASCII.search(sentence.lower()) is not None
    for token in _WORD.findall(sentence):
        if len(token) > _PERSONAL_LONGEST:
            continue
        if token.isascii():
            if token.lower() in _PERSONAL_SET:
                return True
        elif _PERSONAL.fullmatch(token) is not None:
            return True
    return False


_CLINICAL = re.compile(
    r"(?<![\w])(?:diagnos\w*|suffer\w*|living with|lives with|live with|battl\w*|treated|"
    r"treatment|therapy|take|takes|taking|took|on (?:medication|insulin)|prescribed|"
    r"allergic|pregnant|relapse|remission|recover\w*|flare|symptoms?|hospitali[sz]ed|"
    r"have|has|had|got|get|gets|am|is|was|been|being|condition|i'm on|i am on|is on|was on|"
    r"struggl\w*|dealing with|"
    r"coping|manage|managing|tested positive|positive for|doctor|gp|nurse|clinic|"
    r"appointment|dose|mg|inhaler|carry|carry-on|need|needs)(?![\w])",
    re.IGNORECASE,
)
_CASE_ODD = ("\u0131", "\u017f")  # dotless i, long s: IGNORECASE reads them as i and s


def _found_ignoring_case(
    pattern: re.Pattern[str], lower_pattern: re.Pattern[str], text: str
) -> bool:
    """Whether case-insensitive ``pattern`` finds a match in ``text``: the same answer from
    ``lower_pattern`` (the pattern without IGNORECASE, its literals lower case) searched in
    the lower case of ``text``, several times faster; the pattern itself reads a text whose
    lower case changes its length or that has a character IGNORECASE takes for another."""
    lower = text.lower()
    if len(lower) != len(text) or any(c in text for c in _CASE_ODD):
        return pattern.search(text) is not None
    return lower_pattern.search(lower) is not None


_CLINICAL_LOWER = re.compile(_CLINICAL.pattern)


def _clinical(sentence: str) -> bool:
    """Whether ``_CLINICAL`` finds a cue in ``sentence``."""
    return _found_ignoring_case(_CLINICAL, _CLINICAL_LOWER, sentence)


#: Another sense: a star sign, a book, a museum, a product, research, weather, economics.
_OTHER_SENSE = re.compile(
    r"(?<![\w])(?:zodiac|horoscope|star ?sign|astrolog\w*|born in (?:june|july)|"
    r"(?:i'm|im|i am|she's|he's|is|a|an?) (?:cancer|leo|virgo|gemini|libra)"
    r"(?= ?(?:,|\.|;|$| born| sun| moon| rising| and| so| which| who))|"
    r"rising|moon sign|sun sign|"
    r"novel|book|books|memoir|film|movie|documentary|museum|exhibit\w*|gallery|article|"
    r"podcast|essay|play|song|album|lecture|course|seminar|conference|research\w*|study|"
    r"studies|paper|thesis|charity|fundraiser|fundraising|awareness|ribbon|marathon|"
    r"foundation|institute|society|volunteer\w*|crab|tropic|economic|tropical|great depression|"
    r"sunglasses|glasses|lenses|goggles|swim goggles|prescription (?:sunglasses|glasses|"
    r"lenses|goggles|safety|eyewear|frames)|character|plot|episode|series|season|"
    r"lab|startup|company|stock|shares|market|hackathon|dataset|model|benchmark|"
    r"policy|insurance|coverage|course|class|exam|textbook|wikipedia|trivia|quiz|"
    r"game|poster|statistics|rates|funding|awareness|simulation|crime|allergy-friendly|"
    r"allergen|recipe|menu|restaurant|vending|product|shop|store|aisle|pharmacy opens|"
    r"keyboard|plugin|library|bug|build|server|deploy\w*|surgery hours)(?![\w])",
    re.IGNORECASE,
)
_NEGATED = re.compile(
    r"(?:\b(?:no|not|without|never|none|nor|zero|free\s+of|kein\w*|pas|sin)|n't)"
    r"(?:\s+(?:have|has|had|take|taking|need|needs|any|known|real|serious|major|"
    r"significant|other|food|nut|drug|medical|health|special|particular|current|"
    r"history\s+of|kind\s+of|sort\s+of|signs?\s+of|been|diagnosed\s+with|a))*\s+$",
    re.IGNORECASE,
)
#: Terms that are a person's condition whenever a person is named with them ("I need to carry
#: insulin"): diagnoses, prescriptions, named medications.
_STRONG = re.compile(
    r"diagnos\w*|prescribed|insulin|chemo\w*|antidepressants?|pregnan\w*|hiv\S*|dialysis|"
    r"sertraline|prozac|zoloft|xanax|lexapro|metformin|lithium|methadone|adderall|ritalin|"
    r"therapist|psychiatr\w*|disability|wheelchair|inhaler|asthma\w*|epilep\w*",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[.!?;\n]")


#: Where a term can start (lower-case heads of the terms): one cheap pass finds them, and
#: only their sentences are read further.
_HEAD = LiteralHeads(
    r"diag|canc|tumo|chem|diab|insu|anxi|pani|bipo|schi|adhd|auti|epil|asth|preg|misc|abor|"
    r"hiv|hepa|deme|alzh|park|hear|stro|high|hype|medi|pres|anti|ther|psyc|reha|addi|alle|"
    r"surg|disa|chro|illn|covi|depr|mult|croh|celi|coel|migr|arth|eati|anor|buli|ptsd|ocd|"
    r"lupu|leuk|lymp|kidn|dial|sert|proz|zolo|xana|lexa|metf|lith|meth|adde|rita|std|sti|"
    r"aids|ivf|kreb"
)
_HEAD_SET = register_heads("health", _HEAD)
_WINDOW = 400


class _Heads:
    """The term heads of a text in order: the shared pass's positions, or (when the text is
    read alone) ``_HEAD`` searched along it, one head after another. Heads the shared pass
    leaves out (inside a word) are skipped by the caller either way."""

    def __init__(self, lower: str, shared: list[int] | None) -> None:
        self.lower, self.shared, self.i = lower, shared, 0
        self.head = _HEAD.search(lower) if shared is None else None

    def any(self) -> bool:
        return self.head is not None if self.shared is None else bool(self.shared)

    def next(self) -> int:
        """The next head's start, -1 after the last."""
        if self.shared is None:
            if self.head is None:
                return -1
            pos, self.head = self.head.start(), _HEAD.search(self.lower, self.head.end())
            return pos
        if self.i >= len(self.shared):
            return -1
        self.i += 1
        return self.shared[self.i - 1]

    def skip_to(self, pos: int) -> None:
        """Continue with the first head at or after ``pos``."""
        if self.shared is None:
            self.head = _HEAD.search(self.lower, pos)
        else:
            self.i = bisect.bisect_left(self.shared, pos, self.i)


@dataclass(frozen=True)
class HealthDetector:
    """Health terms about a person's condition (see the module docstring).

    Linear: term heads are found in one pass over the lower-cased text; each sentence (or
    400-character window of a long one) with a head is read for cues once.
    """

    name: str = "health_terms"
    kind: str = HEALTH

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        """:meth:`find` on a text read once for every detector."""
        text, lower = scan.text, scan.lower
        found: list[Finding] = []
        shared = scan.heads(_HEAD_SET)
        heads = _Heads(lower, shared)
        if not heads.any():  # no term can start anywhere: nothing more to read
            return found
        verdicts: dict[tuple[int, int], bool] = {}
        negated: dict[str, bool] = {}
        ends = [m.end() for m in _SENTENCE.finditer(text)]
        last = -1
        s_lo = s_hi = -1  # the sentence of the previous term: most terms share it

        terms: dict[str, int] = {}  # the next 40 characters -> the term's length (0: none)

        # Without "chronic" (the one term that can hold another: "chronic asthma") no term
        # starts inside a matched term after a space, so a window found to be about no one
        # can be left at once: none of its terms can count or hide a later one.
        may_nest = "chronic" in lower
        while (pos := heads.next()) >= 0:
            if pos < last or (pos > 0 and (lower[pos - 1].isalnum() or lower[pos - 1] in "-_")):
                continue
            # _TERM reads past its 22nd character only along a run of word characters (its
            # unbounded \w* ends): the same 40 characters with a non-word one among
            # characters 22-36 give the same match, so a flood of one term is matched once
            ahead = text[pos : pos + 40]
            size = terms.get(ahead)
            if size is None:
                m = _TERM.match(text, pos)
                size = 0 if m is None else m.end() - pos
                if len(ahead) < 40 or not ahead[22:37].replace("_", "a").isalnum():
                    terms[ahead] = size
            if not size:
                continue
            end = last = pos + size
            if not s_lo <= pos < s_hi:
                i = bisect.bisect_right(ends, pos)
                s_lo = ends[i - 1] if i else 0
                s_hi = ends[i] if i < len(ends) else len(text)
            lo, hi = s_lo, s_hi
            if hi - lo > _WINDOW:  # a very long sentence: its window around the term
                lo = max(lo, lo + ((pos - lo) // _WINDOW) * _WINDOW - _WINDOW // 2)
                hi = min(hi, lo + 2 * _WINDOW)
            if verdicts.get((lo, 1)) is False:  # about no one: no term there counts
                if not may_nest:
                    heads.skip_to(self._block_end(pos, s_lo, s_hi))
                continue
            term = text[pos:end]
            if term.lower() in _CAPS_ONLY and not term.isupper():
                continue
            strong = _STRONG.fullmatch(term) is not None
            key = (lo, int(strong))
            if key not in verdicts:
                window = text[lo:hi]
                if not _has_person(window):
                    verdicts[(lo, 0)] = verdicts[(lo, 1)] = False  # no person: neither counts
                else:
                    verdicts[key] = _about_a_person(window, strong, personal=True)
            if not verdicts[key]:
                continue
            before = text[max(lo, pos - 60) : pos]
            if before not in negated:
                negated[before] = _NEGATED.search(before) is not None
            if negated[before]:
                continue
            found.append(Finding(HEALTH, self.name, pos, end))
        return found

    @staticmethod
    def _block_end(pos: int, s_lo: int, s_hi: int) -> int:
        """The end of the stretch whose terms share ``pos``'s window: its sentence, or its
        ``_WINDOW``-long slice of a long sentence."""
        if s_hi - s_lo <= _WINDOW:
            return s_hi
        return min(s_hi, s_lo + ((pos - s_lo) // _WINDOW + 1) * _WINDOW)


def _about_a_person(sentence: str, strong: bool, personal: bool = False) -> bool:
    """``personal``: the caller has already found a person word in ``sentence``."""
    if not personal and not _has_person(sentence):
        return False
    if not strong and not _clinical(sentence):
        return False
    return not _other_sense(sentence) or _found_ignoring_case(
        _OWN_DESPITE, _OWN_DESPITE_LOWER, sentence
    )


#: Where an other-sense cue can start (lower case): ``_OTHER_SENSE`` is tried only there.
_OTHER_HEADS = LiteralHeads(
    r"zodiac|horoscope|star|astrolog|born|i'm|im |i am|she's|he's|is |a |an |rising|moon|sun|"
    r"novel|book|memoir|film|movie|documentar|museum|exhibit|galler|article|podcast|essay|"
    r"play|song|album|lecture|course|seminar|conference|research|stud|paper|thesis|charit|"
    r"fundrais|awareness|ribbon|marathon|foundation|institute|societ|volunteer|crab|tropic|"
    r"economic|great|sunglasses|glasses|lenses|goggles|swim|prescription|character|plot|"
    r"episode|series|season|lab|startup|company|stock|shares|market|hackathon|dataset|model|"
    r"benchmark|policy|insurance|coverage|class|exam|textbook|wikipedia|trivia|quiz|game|"
    r"poster|statistic|rates|funding|simulation|crime|allerg|recipe|menu|restaurant|vending|"
    r"product|shop|store|aisle|pharmacy|keyboard|plugin|library|bug|build|server|deploy|surgery"
)


def _other_sense(sentence: str) -> bool:
    lower = sentence.lower()
    if len(lower) != len(sentence):
        return _OTHER_SENSE.search(sentence) is not None
    return any(_OTHER_SENSE.match(sentence, h.start()) for h in _OTHER_HEADS.finditer(lower))


_OWN_DESPITE = re.compile(r"diagnosed|i have|i've got|my (?:doctor|gp)|prescribed me", re.I)
_OWN_DESPITE_LOWER = re.compile(_OWN_DESPITE.pattern)
