"""A preference stated plainly, found from its value and a cue when the router did not name it.

The learned router embeds sentences with an English model, so "Respóndeme siempre en español"
or "Me chama de Bia" can reach it as a lasting fact with no preference name. Here the value
finders (kept tables: language names from CLDR in six languages, diets, currencies) and a cue
that the sentence is about serving the user settle it:

- ``language``: a language named after an address to the agent ("answer me in", "respóndeme",
  "antworte mir");
- ``preferred_name``: a name at a naming cue of a kept language ("call me", "me chama de",
  "叫我", "って呼んで": :mod:`.name_cues`);
- ``diet``: a diet after a first-person "I am" in a kept language ("I'm vego", "soy vegana");
- ``currency``: a currency after "in" with prices, amounts or "everything" ("keep it all in AUD");
- ``units``, ``time_format``, ``date_format``: the value with a word of wanting ("metric pls",
  "24h time in all replies", "date format DD/MM/YYYY");
- ``contact_channel``: a channel named for reminders or messages to the user ("text me rather
  than email", "los avisos mejor por WhatsApp").

:data:`CLOSED_VALUES` are the names whose values come from a kept table: such a preference is
safe in ``user:`` state even where the router would have sent the sentence to review.

A question states none (:func:`stated_preference` returns ``None`` for one).
"""

from __future__ import annotations

import re

from adk_memory_kit.routing.cue_words import asks_a_question
from adk_memory_kit.routing.name_cues import name_after_cue
from adk_memory_kit.routing.value_finders import DEFAULT_FINDERS, DIET_WORDS

#: "I am <diet>" ending its clause ("I'm vego", "soy vegana, y ...", "ich bin Veganerin."), not
#: a diet word describing something else ("I'm a vegetarian restaurant owner").
_I_AM_DIET = re.compile(
    r"(?<!\w)(?:i'?m|i am|soy|sou|ich bin|je suis|sono)\s+(?:(?:a|an|pure|strict|strictly|"
    r"fully|now|also|totally|mostly|un|una|um|uma|ein|eine|ganz|streng|strikt)\s+){0,2}"
    r"(?:" + DIET_WORDS + r")(?=\s*(?:$|[,.;:!)]|\s(?:and|but|since|so|now|too|y|e|und|et|"
    r"mais|ma|pero|mas|aber|seit|desde|depuis|da|no|not)\b))",
    re.IGNORECASE,
)
_MONEY_CUE = re.compile(
    r"(?<!\w)(?:prices?|amounts?|costs?|totals?|everything|all|quotes?|figures|budgets?|precios|"
    r"pre[cç]os|preise|prix|prezzi|keep|show|display|convert|put)(?:\s+\w+){0,3}?\s+"
    r"(?:in|en|em|auf|a)\s",
    re.IGNORECASE,
)
#: An address to the agent about the language of its replies, in the kept languages.
_REPLY_CUE = re.compile(
    r"(?<!\w)(?:(?:repl\w*|answer\w*|respond\w*|talk\w*|speak\w*|writ\w*|messag\w*|chat\w*)"
    r"(?:\s+(?:to|with)\s+(?:me|us))?(?:\s+(?:only|always|just))?\s+in|"
    r"resp[oó]nd[ae]me|cont[eé]st[ae]me|h[aá]blame|escr[ií]beme|"
    r"me (?:responda|responde|respondas|contestes|hables|escribas|escreva|fale)|fal[ae] comigo|"
    r"responda-me|antwort\w* (?:mir|mich)|schreib\w* (?:mir|mich)|sprich mit mir|"
    r"r[eé]pond(?:s|ez)-moi|parle(?:z)?-moi|[eé]cri(?:s|vez)-moi|rispondimi|parlami|scrivimi|"
    r"antwoord\w*(?: mij| me)?(?: graag)? in|schrijf (?:mij|me)|skriv (?:till|åt) mig|"
    r"svara (?:mig )?p[aå])"
    r"(?!\w)",
    re.IGNORECASE,
)
#: An explicit naming cue ("call me", "me chama de", "nenn mich"); the finder's looser cues
#: ("I'm", "say") are for sentences the router already named a preferred-name preference.
_NAMING = re.compile(
    r"(?<!\w)(?:call me|address me as|refer to me as|go by|know me as|my name is|my name's|"
    r"me cham[ae]m? de|ll[aá]m[ae]me|ll[aá]menme|me llames|me llamen|nenn(?:t|en sie)? mich|"
    r"appelle[sz]?-moi|chiamami|chiamatemi|noem me(?: maar| gewoon)?|kalla mig)\s+\S",
    re.IGNORECASE,
)
_WANTING = re.compile(
    r"(?<!\w)(?:prefer\w*|rather|please|pls|plz|use|using|give|show|always|default|stick|keep|"
    r"for me|not|instead|over|only|por favor|porfa|usa|usar|bitte|s'il|per favore|sempre|"
    r"siempre|mejor|lieber|plut[oô]t|preferirei|prefiero|prefiro|format|clock|time|times|"
    r"dates?)(?!\w)",
    re.IGNORECASE,
)
_TO_THE_USER = re.compile(
    r"(?<!\w)(?:remind\w*|notif\w*|alerts?|messages?|updates?|contact me|reach me|text me|"
    r"message me|ping me|call me on|avisos?|recordatorios?|notificaci\w+|notifica\w+|"
    r"lembretes?|benachrichtig\w*|erinnerung\w*|rappels?|promemoria|appointment\w*)(?!\w)",
    re.IGNORECASE,
)
#: Preference names whose values come from kept tables (never free text).
CLOSED_VALUES = frozenset(
    {"diet", "seat", "cabin_class", "language", "currency", "units", "time_format",
     "date_format", "contact_channel"}
)  # fmt: skip


def stated_preference(sentence: str) -> tuple[str, str] | None:
    """``(name, value)`` of a preference ``sentence`` states plainly, else ``None``."""
    if asks_a_question(sentence):
        return None
    name = _NAMING.search(sentence) and DEFAULT_FINDERS["preferred_name"](sentence)
    if not (name and name[:1].isupper()):
        # a lower-case word after an English cue is as often no name ("call me back"); a
        # plain naming cue of another language is read whatever the script
        name = name_after_cue(sentence, plain=True)
    if name:
        return "preferred_name", name
    language = DEFAULT_FINDERS["language"](sentence)
    if language and _REPLY_CUE.search(sentence):
        return "language", language
    if _I_AM_DIET.search(sentence) and (diet := DEFAULT_FINDERS["diet"](sentence)):
        return "diet", diet
    if _MONEY_CUE.search(sentence) and (currency := DEFAULT_FINDERS["currency"](sentence)):
        return "currency", currency
    if _WANTING.search(sentence):
        for name in ("date_format", "time_format", "units"):
            if value := DEFAULT_FINDERS[name](sentence):
                return name, value
    if _TO_THE_USER.search(sentence) and (channel := DEFAULT_FINDERS["contact_channel"](sentence)):
        return "contact_channel", channel
    return None
