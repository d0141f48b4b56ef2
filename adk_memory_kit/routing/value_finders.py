"""Value extraction for the offline router: the classifier names the preference, these find
its value in the sentence. Deliberately lenient (the name was already decided); a preference
whose value cannot be found is kept as a long-term fact under that subject instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from adk_memory_kit.routing.cue_vocabulary import vocabulary_pattern
from adk_memory_kit.routing.language_names_data import LANGUAGE_BY_CODE, LANGUAGE_NAMES
from adk_memory_kit.routing.name_cues import QUOTED_NAME, name_after_cue
from adk_memory_kit.routing.reply_style import find_reply_style
from adk_memory_kit.routing.value_names_data import CURRENCY_NAMES, UNIT_SYSTEMS
from adk_memory_kit.sensitive.negation import negated_before
from adk_memory_kit.text.language import english_probability, likeliest_language, written_language

Finder = Callable[[str], str | None]


# a value the clause retires before naming it ("I quit Italian", "not vegan any more") is not
# the value the sentence states; "from" retires one only when "to" follows it ("switched from
# economy to business", not "I fly from Heathrow in business")
_RETIRED = re.compile(
    r"(?:\b(?:quit|quitting|stopped|stop|gave up|give up|giving up|dropped|no longer|not|never|"
    r"no more|instead of|rather than|used to|finished|over)|n't)\s+(?:\w+\s+){0,3}$",
    re.IGNORECASE,
)
_FROM = re.compile(r"\bfrom\s+(?:\w+\s+){0,3}$", re.IGNORECASE)
_THEN_TO = re.compile(r"^\s+(?:\w+\s+){0,2}?to\b", re.IGNORECASE)
_PIECE_START = re.compile(r"[,.;:!?\uff0c\u3001\u3002]")
_CLAUSE_BREAK = re.compile(r"[,.;:!?]|\b(?:and|but|so|now|(?<!used )to)\b", re.IGNORECASE)


def _retired(text: str, start: int, end: int) -> bool:
    """Whether the phrase at ``start:end`` follows a retiring cue in its own clause, or a
    negation word of any kept language just before it ("no en dólares", "nie w euro")."""
    before = text[:start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    clause = before[breaks[-1].end() :] if breaks else before
    if _RETIRED.search(clause) or negated_before(_PIECE_START.split(before)[-1]):
        return True
    return bool(_FROM.search(clause)) and bool(_THEN_TO.match(text[end:]))


def _pattern(table: Mapping[str, str]) -> re.Pattern[str]:
    """The phrases of ``table`` as whole words, longest first; a phrase of a script written
    without spaces (日本語, ภาษาไทย) anywhere (:func:`~.cue_vocabulary.vocabulary_pattern`)."""
    return vocabulary_pattern(table)


def _phrase(match: re.Match[str]) -> str:
    """The table key a match stands for (lower case, single spaces)."""
    return " ".join(match.group(0).lower().split())


Accept = Callable[[str, str], bool]


def _in_its_language(names: Mapping[str, tuple[str, bool]]) -> Accept:
    """Whether a phrase of ``text`` is read as a value: a phrase not from ``names`` always;
    one from ``names`` when English writes it so, or when ``text`` is likeliest written in
    another language ("stop" is Czech for feet, "mails" Latvian for miles: in an English
    sentence neither is a unit)."""

    def accept(text: str, phrase: str) -> bool:
        found = names.get(phrase)
        if found is None or found[1]:
            return True
        return likeliest_language(text[:MAX_FINDER_CHARS]) != "en"

    return accept


def _always(_text: str, _phrase: str) -> bool:
    return True


def _values(names: Mapping[str, tuple[str, bool]]) -> dict[str, str]:
    return {name: value for name, (value, _english) in names.items()}


def _first(table: Mapping[str, str], *, retire: bool = True, accept: Accept = _always) -> Finder:
    """A finder returning the canonical value of the earliest phrase of ``table`` found that
    its clause does not retire ("I quit Italian, answer me in Greek now" -> Greek); ``None``
    when every phrase is retired ("I'm not vegetarian any more" states no diet; see
    :func:`_retired_first`). ``retire=False``: the earliest, always (an allergy is named by a
    negation: "never give me shellfish, fish is fine")."""
    pattern = _pattern(table)

    def find(text: str) -> str | None:
        matches = [m for m in pattern.finditer(text) if accept(text, _phrase(m))]
        kept = [m for m in matches if not (retire and _retired(text, m.start(), m.end()))]
        return table[_phrase(kept[0])] if kept else None

    return find


def _retired_first(table: Mapping[str, str], accept: Accept = _always) -> Finder:
    """The value a sentence says no longer holds: the canonical value of its earliest phrase
    of ``table`` when its clause retires every one ("I'm no longer vegetarian" ->
    vegetarian); ``None`` when the sentence names a value it keeps, or none."""
    pattern = _pattern(table)

    def find(text: str) -> str | None:
        matches = [m for m in pattern.finditer(text) if accept(text, _phrase(m))]
        if not matches or not all(_retired(text, m.start(), m.end()) for m in matches):
            return None
        return table[_phrase(matches[0])]

    return find


_DIET = {
    "vegetarian": "vegetarian", "veggie": "vegetarian", "meat-free": "vegetarian",
    "meat free": "vegetarian", "no meat": "vegetarian", "don't eat meat": "vegetarian",
    "gave up meat": "vegetarian", "vegan": "vegan", "vegans": "vegan", "plant-based": "vegan",
    "plant based": "vegan", "pescatarian": "pescatarian", "pescetarian": "pescatarian",
    "fish but no other meat": "pescatarian", "halal": "halal", "kosher": "kosher",
    "gluten free": "gluten-free", "gluten-free": "gluten-free", "coeliac": "gluten-free",
    "celiac": "gluten-free", "lactose-free": "lactose-free", "lactose free": "lactose-free",
    # how users also say it (Australian, Indian English) and in the kept languages
    "vego": "vegetarian", "pure veg": "vegetarian", "pure vegetarian": "vegetarian",
    "vegetariano": "vegetarian", "vegetariana": "vegetarian", "vegetarisch": "vegetarian",
    "vegetarier": "vegetarian", "vegetarierin": "vegetarian", "végétarien": "vegetarian",
    "végétarienne": "vegetarian", "vegetariani": "vegetarian", "vegano": "vegan",
    "vegana": "vegan", "veganer": "vegan", "veganerin": "vegan", "végane": "vegan",
    "vegani": "vegan",
}  # fmt: skip
#: The diet phrases as one regex alternation (longest first), for cues built around them.
DIET_WORDS = "|".join(sorted(map(re.escape, _DIET), key=len, reverse=True))
_SEAT = {"aisle": "aisle", "window": "window", "middle": "middle"}
_CABIN = {
    "premium economy": "premium economy", "economy": "economy", "business": "business",
    "first class": "first", "first": "first",
}  # fmt: skip
_LANGUAGES = {
    **LANGUAGE_NAMES,  # CLDR names in six languages and each language's own name
    **{
        w: w.capitalize()
        for w in (
            "english german french spanish portuguese italian dutch hindi japanese chinese "
            "polish swedish danish norwegian finnish greek turkish arabic korean russian czech"
        ).split()
    },
}
_CURRENCY_WORDS = {
    "euro": "EUR", "euros": "EUR", "eur": "EUR", "dollar": "USD", "dollars": "USD",
    "us dollars": "USD", "usd": "USD", "pound": "GBP", "pounds": "GBP", "sterling": "GBP",
    "gbp": "GBP", "rupee": "INR", "rupees": "INR", "inr": "INR", "yen": "JPY", "jpy": "JPY",
    "franc": "CHF", "francs": "CHF", "swiss francs": "CHF", "chf": "CHF",
    "aud": "AUD", "australian dollars": "AUD", "nzd": "NZD", "cad": "CAD", "sgd": "SGD",
    "hkd": "HKD", "mxn": "MXN", "brl": "BRL", "reais": "BRL", "zar": "ZAR", "rand": "ZAR",
    "kes": "KES", "shillings": "KES", "idr": "IDR", "myr": "MYR", "ringgit": "MYR",
    "thb": "THB", "baht": "THB", "aed": "AED", "dirhams": "AED", "sek": "SEK", "nok": "NOK",
    "dkk": "DKK", "pln": "PLN", "zloty": "PLN", "czk": "CZK", "huf": "HUF", "cny": "CNY",
    "yuan": "CNY", "krw": "KRW", "won": "KRW", "dólares": "USD", "dolares": "USD",
    "libras": "GBP", "rupias": "INR", "rupien": "INR",
}  # fmt: skip
# CLDR's names in the users' languages (benchmarks/value_names_build.py), the kit's own first
_CURRENCY = {**_values(CURRENCY_NAMES), **_CURRENCY_WORDS}
_CURRENCY_READ = _in_its_language(
    {k: v for k, v in CURRENCY_NAMES.items() if k not in _CURRENCY_WORDS}
)
_ALLERGENS = {
    w: w
    for w in (
        "peanuts peanut tree nuts nuts walnuts walnut cashews cashew almonds hazelnuts "
        "shellfish crab lobster shrimp prawns fish sesame egg eggs soy soya milk dairy "
        "wheat gluten mustard celery lupin kiwi kiwi fruit strawberries strawberry"
    ).split()
}
_ALLERGENS.update({"tree nuts": "tree nuts", "kiwi fruit": "kiwi", "crab and lobster": "shellfish"})

# the units a user wants: a unit named as a system ("in km", "kilometres not miles"), never a
# measurement ("ran 5 km": a digit before it), see _units
_UNIT_WORDS = {
    "metric": "metric", "métrico": "metric", "métrica": "metric", "metrisch": "metric",
    "métrique": "metric", "metrico": "metric", "kilometres": "metric", "kilometers": "metric",
    "kilómetros": "metric", "quilômetros": "metric", "kilometer": "metric", "km": "metric",
    "kms": "metric", "kg": "metric", "kilos": "metric", "kilograms": "metric", "grams": "metric",
    "celsius": "metric", "centigrade": "metric", "metres": "metric", "meters": "metric",
    "sq m": "metric", "litres": "metric", "liters": "metric",
    "imperial": "imperial", "miles": "imperial", "pounds": "imperial", "lbs": "imperial",
    "ounces": "imperial", "fahrenheit": "imperial", "feet": "imperial", "inches": "imperial",
    "feet and inches": "imperial", "sq ft": "imperial", "gallons": "imperial",
}  # fmt: skip
_UNITS = {**_values(UNIT_SYSTEMS), **_UNIT_WORDS}
_TIME_FORMAT = {
    "24-hour": "24-hour", "24 hour": "24-hour", "24h": "24-hour", "24-hr": "24-hour",
    "24hr": "24-hour", "24 hr": "24-hour", "24 horas": "24-hour", "24 ore": "24-hour",
    "24-stunden": "24-hour", "24 stunden": "24-hour", "24 heures": "24-hour",
    "12-hour": "12-hour", "12 hour": "12-hour", "12h": "12-hour", "12-hr": "12-hour",
    "12hr": "12-hour", "am/pm": "12-hour", "am pm": "12-hour", "12 horas": "12-hour",
}  # fmt: skip
_DATE_FORMAT = {
    "dd/mm/yyyy": "DD/MM/YYYY", "dd/mm/yy": "DD/MM/YYYY", "dd/mm": "DD/MM/YYYY",
    "dd.mm.yyyy": "DD/MM/YYYY", "dd-mm-yyyy": "DD/MM/YYYY", "day.month.year": "DD/MM/YYYY",
    "day/month/year": "DD/MM/YYYY", "day first": "DD/MM/YYYY", "mm/dd/yyyy": "MM/DD/YYYY",
    "mm/dd": "MM/DD/YYYY", "month first": "MM/DD/YYYY", "yyyy-mm-dd": "YYYY-MM-DD",
    "iso dates": "YYYY-MM-DD", "iso format": "YYYY-MM-DD",
}  # fmt: skip
# a date format shown by its fields in any language ("dd/mm/aaaa", "TT.MM.JJJJ",
# "dia/mês/ano", "zi.lună.an"): three letter groups joined by one separator; the year is a
# group of four letters, month first only where the first group is the month ("mm/dd")
_FIELDS = re.compile(
    r"(?<![\w/.-])([^\W\d_]{1,8})([./-])([^\W\d_]{1,8})\2([^\W\d_]{1,8})(?![\w/-])"
)
# ... or by an example date ("24.12.2025", "07.03.2025", "2025-12-24")
_EXAMPLE = re.compile(r"(?<![\d.])(\d{1,4})([./-])(\d{1,2})\2(\d{2,4})(?![\d.])")
_YEAR_GROUP = re.compile(r"(\w)\1{3}|\w{4,}", re.IGNORECASE)


_NAMED_DATE_FORMAT = _first(_DATE_FORMAT)


def _date_format(text: str) -> str | None:
    """``DD/MM/YYYY``, ``MM/DD/YYYY`` or ``YYYY-MM-DD`` from a named format, a format shown
    by its fields in any language, or an example date that tells day and month apart (a
    dotted date is day first: no month-first country writes one)."""
    text = text[:MAX_FINDER_CHARS]
    named = _NAMED_DATE_FORMAT(text)
    if named:
        return named
    for match in _FIELDS.finditer(text):
        first, second, third = (g.lower() for g in match.group(1, 3, 4))
        if _YEAR_GROUP.fullmatch(first) and not _YEAR_GROUP.fullmatch(third):
            return "YYYY-MM-DD"
        if first[0] in "mм" and second[0] not in "mм":
            return "MM/DD/YYYY"
        return "DD/MM/YYYY"
    for match in _EXAMPLE.finditer(text):
        first, separator, second, third = match.groups()
        if len(first) == 4:
            return "YYYY-MM-DD"
        day, month = int(first), int(second)
        if len(third) == 4 and 12 < day <= 31 and month <= 12:
            return "DD/MM/YYYY"
        if len(third) == 4 and day <= 12 < month <= 31:
            return "MM/DD/YYYY"
        if separator == "." and day <= 31 and month <= 12:
            return "DD/MM/YYYY"
    return None


_CHANNEL = {
    "whatsapp": "WhatsApp", "whats app": "WhatsApp", "wa": "WhatsApp", "sms": "SMS",
    "text message": "SMS", "text messages": "SMS", "texts": "SMS", "text": "SMS",
    "email": "email", "e-mail": "email", "mail": "email", "correo": "email", "e-mails": "email",
    "emails": "email", "telegram": "Telegram", "signal": "Signal", "imessage": "iMessage",
    "phone call": "phone call", "a call": "phone call", "calls": "phone call",
    "landline": "landline", "discord": "Discord", "messenger": "Messenger", "viber": "Viber",
    "line app": "LINE", "push notifications": "push notification",
}  # fmt: skip
_NUMBER_BEFORE = re.compile(r"\d[\d.,]*\s*$")
_UNIT_PATTERN = _pattern(_UNITS)
_UNIT_READ = _in_its_language({k: v for k, v in UNIT_SYSTEMS.items() if k not in _UNIT_WORDS})


def _units(text: str) -> str | None:
    """``metric`` or ``imperial`` when a unit is named as a system (no number just before it:
    "in kilometres, not miles" is a preference, "ran 5 km" is a measurement)."""
    for match in _UNIT_PATTERN.finditer(text[:MAX_FINDER_CHARS]):
        if _NUMBER_BEFORE.search(text[: match.start()]):
            continue
        if not _UNIT_READ(text, _phrase(match)):
            continue
        if not _retired(text, match.start(), match.end()):
            return _UNITS[_phrase(match)]
    return None


_AIRPORT = re.compile(r"\b(?-i:[A-Z]{3})\b")
_NOT_AIRPORTS = {"USD", "EUR", "GBP", "INR", "JPY", "CHF", "THE", "AND", "YES", "PIN", "CVV"}

_TITLE = r"(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor)\.?\s+)?"
_CAP = r"[A-Z][a-zA-Z\u00c0-\u017f'-]+"
_NAME_CUE = re.compile(
    r"\b(?i:prefer|call me|calls me|call me by my nickname,?|go by|know me as|knows me as|"
    r"address me as|refer to me as|addressing me|(?:be|am|I'm|being|get) called|"
    r"my name is|my name's|my first name is|use the name|"
    r"say|I'm|I am|use|but|use my first name,?|address me as|"
    # the same cue in the kept languages ("me chama de Bia", "llámame Pili", "nenn mich Jo")
    r"me cham[ae]m? de|ll[aá]m[ae]me|ll[aá]menme|me llames|me llamen|nenn(?:t|en Sie)? mich|"
    r"appelle[sz]?-moi|chiamami|chiamatemi|noem me(?: maar| gewoon)?|kalla mig)\s+"
    r"(?P<name>" + _TITLE + _CAP + r")",
)
_NON_NAMES = {"I", "Please", "Just", "The", "My", "Hi", "Hello", "Use", "Call", "Say"}


_WEEKDAYS_MONTHS = (
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April "
    "May June July August September October November December"
).split()
_NOT_PLACES = {"I", "My", "The", "Our", "It", "That", "This", "Please", "Search", "Book"}
_NOT_PLACES |= {"Terminal", "Airport", "International", *_WEEKDAYS_MONTHS}
_PLACE = (
    r"(?!(?:"
    + "|".join(sorted(_NOT_PLACES))
    + r")\b)"
    + _CAP
    + r"(?:\s+(?!(?:"
    + "|".join(sorted(_NOT_PLACES))
    + r")\b)"
    + _CAP
    + r")?"
)
# an airport by name, strongest cue first: "fly out of Stansted", "Edinburgh is my usual
# airport", "my home airport is Manchester", "Glasgow airport ..."; a place followed by
# "back to" / "home to" is where a trip starts, not home ("flying from Rome back to Leeds")
_NOT_HOME = r"(?!\s*,?\s+(?:back|home|on my way)\b)"
_AIRPORT_CUES = (
    re.compile(
        r"\b(?i:fly(?:ing)?\s+(?:out\s+of|from)|depart(?:ing|s)?\s+from|leav(?:e|ing)\s+from|"
        r"flights?\s+(?:out\s+of|from)|search(?:es)?\s+from|start(?:ing)?\s+from|out\s+of|"
        r"I\s+use)\s+(?P<place>" + _PLACE + r")\b" + _NOT_HOME
    ),
    re.compile(
        r"(?P<place>" + _PLACE + r")\s+(?i:is|'s)\s+(?i:my|the|our)\s+(?:\w+\s+)?(?i:airport)\b"
    ),
    re.compile(
        r"\b(?i:airport)\b(?:\s+\w+){0,3}?\s+(?i:is)\s+(?i:always\s+|usually\s+|normally\s+)?"
        r"(?P<place>" + _PLACE + r")"
    ),
    re.compile(r"(?P<place>" + _PLACE + r")\s+(?i:airport)\b" + _NOT_HOME),
)
#: the finders read at most this much of a sentence (a regex over a long capitalised run
#: would otherwise cost seconds)
MAX_FINDER_CHARS = 500


def _airport(text: str) -> str | None:
    """An IATA code ("LHR"), else an airport or city named as the one the user flies from
    ("I fly out of Stansted", "Glasgow airport"), as written."""
    text = text[:MAX_FINDER_CHARS]
    for match in _AIRPORT.finditer(text):
        if match.group(0) not in _NOT_AIRPORTS:
            return match.group(0)
    for cue in _AIRPORT_CUES:
        found = cue.search(text)
        if found:
            return found.group("place")
    return None


def _name(text: str) -> str | None:
    """The name the user asks to be called, after a cue ("call me", "I go by", "my name
    is"), or at a naming cue of another kept language (:mod:`.name_cues`); none without one:
    a capitalised word elsewhere is as often a place, a service or someone else ("I'm fern_w
    on Discord", "My middle name is Ann"), and a sentence with no name found is kept as a
    lasting fact instead."""
    names = [m.group("name") for m in _NAME_CUE.finditer(text[:MAX_FINDER_CHARS])]
    names = [n for n in names if n.split()[-1] not in _NON_NAMES]
    return names[-1].rstrip(".,") if names else name_after_cue(text)


# the language the user wants replies in is said of talking to them; learning, studying or
# practising one ("I'm learning Spanish on Duolingo", "dropped Spanish, started Japanese
# lessons") is a lasting fact about the user, not a wish to be answered in it
_LEARNING = re.compile(
    r"\b(?:learn\w*|lessons?|class(?:es)?|courses?|stud(?:y|ies|ying|ied)|duolingo|babbel|"
    r"tutor\w*|practi[sc]\w*|revis\w*|exams?|teach\w*|taught)\b",
    re.IGNORECASE,
)
# what languages the user (or the people around them) speak, and how well, is also a lasting
# fact: "I'm fluent in German", "my native language is Korean", "we speak Tagalog at home"
_SPOKEN = re.compile(
    r"\b(?:speak|speaks|spoke|speaking|spoken|fluent\w*|native|mother tongue|first language|"
    r"second language|grew up|bilingual|trilingual|conversational|a (?:bit|little|word) of)\b",
    re.IGNORECASE,
)
LANGUAGE_PATTERN = "|".join(sorted(_LANGUAGES, key=len, reverse=True))
TO_ME = re.compile(
    r"\b(?:resp[oó]nd[ae]me|resp[oó]ndeme|cont[eé]st[ae]me|h[aá]blame|escr[ií]beme|"
    r"me (?:responda|responde|respondas|contestes|hables|escribas|escreva|fale)|fal[ae] comigo|"
    r"responda-me|antwort\w* (?:mir|mich)|schreib\w* (?:mir|mich)|sprich mit mir|"
    r"r[eé]pond(?:s|ez)-moi|parle(?:z)?-moi|[eé]cri(?:s|vez)-moi|rispondimi|parlami|scrivimi|"
    r"repl\w*|answer\w*|respond\w*|response\w*|talk\w* (?:to|with) me|speak\w* (?:to|with) "
    r"me|write to me|messages?|communicat\w*|conversations?|chat\w* (?:to|with) me|"
    r"(?:please|pls|can you|could you|would you|will you)\s+(?:only\s+|just\s+)?speak|"
    r"speak (?:only )?(?:" + LANGUAGE_PATTERN + r") (?:to|with) me|^\s*(?:only |just )?speak|"
    r"(?:preferred|reply|replies|response|default|chat|conversation|app|interface) language|"
    r"(?:switch|chang|set|use)\w*\s+(?:the\s+|your\s+|my\s+)?language|"
    # what the user can read: "I only speak Spanish", "... so Polish is easier for me"
    r"(?<!and )\bi only speak\b(?![^.!?]*\b(?:at home|with (?!you)|to each other)\b)|"
    r"(?:easier|better) for me|prefer\w*|"
    r"language (?:for|of) (?:the |your |our )?(?:repl|answer|response|chat|conversation)\w*|"
    r"from now on|from here on|(?:use|using|only|switch(?:ing)? to)\s+(?:"
    + LANGUAGE_PATTERN
    + r")|"
    r"(?:do|say|write|put|continue|carry on|this|that|it|everything|things)\s+in\s+(?:"
    + LANGUAGE_PATTERN
    + r"))\b",
    re.IGNORECASE,
)


def _reply_language(find: Finder, *, retiring: bool = False) -> Finder:
    """``find``, except in a sentence about learning a language, or about the languages
    someone speaks, that never speaks of talking to the user; where it does, the language
    named from there on first ("I'm learning Swedish, reply to me in English" -> English).
    ``retiring``: ``find`` names a retired value, which a sentence about speaking still names
    ("I don't speak French")."""

    def finder(text: str) -> str | None:
        to_me = TO_ME.search(text)
        if to_me is None:
            if _LEARNING.search(text) or (not retiring and _SPOKEN.search(text)):
                return None
            return find(text)
        return find(text[to_me.start() :]) or find(text)

    return finder


# a word of any script (a capitalised one starts a name; a quoted name: name_cues.QUOTED_NAME)
_WORD = re.compile(r"[^\W\d_][\w'’.-]*")

#: Languages that capitalise nouns (and German's formal "Sie"): only a quoted name is read.
_NOUNS_CAPITALISED = frozenset({"de", "lb"})

#: Below this probability of English, a sentence is read for a name without English cues.
_NOT_ENGLISH = 0.1


def _name_said_in_another_language(text: str) -> str | None:
    """The name a sentence in another language asks the user be called, read when the router
    has already named the preference and the English cues found none ("zi-mi Nelu",
    "panggil gw Bang Udin aja", "Säg mer eifach Rüedu, nid Herr Zbinden"): the first quoted
    name, else the first run of one to three capitalised words after the sentence's first
    word; ``None`` in English (whose cues decide alone: "My middle name is Ann" names no one
    to call the user) or in a script without capitals and quotes."""
    text = text[:MAX_FINDER_CHARS]
    words = list(_WORD.finditer(text))
    if len(words) < 2 or english_probability(text) >= _NOT_ENGLISH:
        return None
    for quoted in QUOTED_NAME.finditer(text):
        name = quoted.group(1).strip()
        if name and len(name.split()) <= 3 and name[0].isupper():
            return name
    if written_language(text) in _NOUNS_CAPITALISED:
        return None  # "Bitte siezen Sie mich": a capital there is a noun or "Sie", no name
    run: list[str] = []
    for previous, word in zip(words, words[1:], strict=False):
        joined = not run or text[previous.end() : word.start()].strip() == ""
        if word.group(0)[0].isupper() and word.group(0) not in _NON_NAMES and joined:
            run.append(word.group(0))
            if len(run) == 3:
                break
        elif run:
            break
    return " ".join(run).rstrip(".-'’") if run else None


def _language_written_in(text: str) -> str | None:
    """The language a sentence in another language is written in, as the reply language the
    router named with no language word found in it ("Відповідай тільки українською"):
    ``None`` for English, short or mixed sentences, or an unsure identifier."""
    if len(text.split()) < 3:
        return None
    code = written_language(text[:MAX_FINDER_CHARS])
    return LANGUAGE_BY_CODE.get(code) if code else None


#: Finders the offline extractor tries, for the kit's own finder of a name, when the router
#: named that preference and the kit's finder found no value in the sentence.
MEANING_FALLBACKS: dict[str, Finder] = {
    "preferred_name": _name_said_in_another_language,
    "language": _language_written_in,
}


#: The value finder of each default preference name.
DEFAULT_FINDERS: dict[str, Finder] = {
    "diet": _first(_DIET),
    "seat": _first(_SEAT),
    "cabin_class": _first(_CABIN),
    "language": _reply_language(_first(_LANGUAGES)),
    "currency": _first(_CURRENCY, accept=_CURRENCY_READ),
    "allergies": _first(_ALLERGENS, retire=False),
    "home_airport": _airport,
    "preferred_name": _name,
    "units": _units,
    "time_format": _first(_TIME_FORMAT),
    "date_format": _date_format,
    "contact_channel": _first(_CHANNEL),
    "reply_style": find_reply_style,
}


#: The finder of the value each default preference name's sentence retires ("I'm not vegan
#: any more"): the applier clears that ``user:`` value (allergies never: a negation names one).
DEFAULT_RETIRED_FINDERS: dict[str, Finder] = {
    "diet": _retired_first(_DIET),
    "seat": _retired_first(_SEAT),
    "cabin_class": _retired_first(_CABIN),
    "language": _reply_language(_retired_first(_LANGUAGES), retiring=True),
    "currency": _retired_first(_CURRENCY, _CURRENCY_READ),
}


def allowed_value_finder(values: frozenset[str]) -> Finder:
    """A finder for a preference restricted to ``values`` (the first one named)."""
    return _first({v: v for v in values}) if values else (lambda _text: None)


def allowed_value_retired(values: frozenset[str]) -> Finder:
    """:func:`allowed_value_finder`'s counterpart for the value a sentence retires."""
    return _retired_first({v: v for v in values}) if values else (lambda _text: None)
