"""Kept vocabularies of how a request is said, in English, Spanish, Portuguese, German, French,
Italian, Dutch and Swedish, with the commonest romanised Hindi and Tamil words: the words that
scope a request to now, make it lasting, give the agent a standing
order, ask it to forget, or only thank it. "Always", "from now on" and "without asking me" in
~35 languages come from :mod:`.cue_vocabulary`, the words the router's cues read.

The learned router embeds what a sentence is about with an English model; these classes say
how it is said, in the languages users write in, so the choice between homes can be made by
harm (docs/routing.md, "Choosing by harm"): scoped to now -> session, not ``user:`` state;
a standing order about the agent's conduct -> review, not a stored fact; a question never
writes ``user:`` state. Each class is a small list of function words and fixed phrases, not
phrasings of one corpus: a word belongs here when it carries the class in any sentence.
"""

from __future__ import annotations

import re

from adk_memory_kit.routing.cue_vocabulary import (
    AUTOMATICALLY_WORDS,
    FORGET_AT_END_WORDS,
    FORGET_MORE_WORDS,
    FORGET_WORDS,
    FROM_NOW_ON_WORDS,
    LASTING_PATTERN,
    WITHOUT_ASKING_WORDS,
    fold_apostrophes,
    vocabulary_pattern,
)


def _words(*alternatives: str) -> re.Pattern[str]:
    """One case-insensitive pattern of whole-word ``alternatives`` (regex fragments)."""
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)", re.IGNORECASE)


#: Scoped to this task or conversation ("just this once", "for this trip", "today").
NOW_SCOPE = _words(
    # English
    r"just this (?:once|time|one)",
    r"only this (?:once|time)",
    r"this time",
    r"for now",
    r"for the moment",
    r"at the moment",
    r"right now",
    r"(?:for|on|in|during) (?:this|today'?s|tonight'?s|tomorrow'?s) (?:trip|order|search|booking|"
    r"stay|visit|journey|flight|meeting|move|run|week|weekend|month|one|quote|round)",
    r"for (?:today|tonight|tomorrow)",
    r"today",
    r"tonight",
    r"one-off",
    r"(?:for|in|during) this (?:conversation|chat|session)",
    # Spanish
    r"(?:s[oó]lo )?(?:esta|por esta) vez",
    r"por ahora",
    r"por el momento",
    r"ahora mismo",
    r"(?:para|en|durante) (?:este|esta) (?:viaje|finde|fin de semana|pedido|b[uú]squeda|"
    r"reserva|semana|mes|mudanza)",
    r"hoy",
    r"esta noche",
    r"mientras (?:buscamos|tanto)",
    # Portuguese
    r"(?:s[oó] )?(?:desta|dessa|esta|essa) vez",
    r"por enquanto",
    r"por agora",
    r"agora mesmo",
    r"(?:para|pra|nesta|nessa|neste|nesse) (?:esta |essa |este |esse )?(?:viagem|pedido|"
    r"busca|reserva|semana|m[eê]s|fim de semana)",
    r"s[oó] (?:este|esse) m[eê]s",
    r"hoje",
    r"hoje (?:à|a) noite",
    # German
    r"(?:nur )?diesmal",
    r"nur f[uü]r (?:diese|dieses|diesen|heute|morgen)\w*",
    r"f[uü]r (?:diese|dieses|diesen) (?:reise|bestellung|suche|woche|buchung|fahrt|mal)",
    r"f[uü]r morgen",
    r"heute(?: abend)?",
    r"im moment",
    r"vorerst",
    r"jetzt gerade",
    # French
    r"(?:juste |seulement )?cette fois",
    r"pour (?:l'instant|le moment|ce voyage|cette commande|ce soir|aujourd'hui|demain)",
    r"aujourd'hui",
    r"ce soir",
    # Italian
    r"(?:solo )?(?:questa|per questa) volta",
    r"per (?:ora|adesso|oggi|stasera|domani|questo viaggio|questo ordine)",
    r"oggi",
    r"stasera",
    # Dutch
    r"(?:alleen )?deze keer",
    r"voor (?:nu|deze (?:bestelling|reis|keer|week)|vandaag|vanavond|morgen)",
    r"voorlopig",
    r"vandaag",
    r"vanavond",
    # Swedish
    r"(?:bara )?(?:den här|denna) g[aå]ngen",
    r"f[oö]r (?:den h[aä]r|denna) (?:resan|best[aä]llningen|veckan)",
    r"bara f[oö]r idag",
    r"idag",
    r"ikv[aä]ll",
    r"i det h[aä]r samtalet",
    # romanised Hindi and Tamil
    r"aaj(?: ke liye| ki| ka)?",
    r"is baar",
    r"abhi ke liye",
    r"is hafte",
    r"inniki",
    r"indha (?:thadava|vaati)",
)

#: Makes a statement lasting ("always", "from now on", "usually", "in general").
LASTING = _words(
    r"always",
    r"every (?:time|day|week|month|morning|evening)",
    r"whenever",
    r"by default",
    r"in general",
    r"generally",
    r"usually",
    r"normally",
    r"from (?:now|here) on",
    r"going forward",
    r"in (?:the )?future",
    r"as usual",
    r"since \d+",
    r"en general",
    r"normalmente",
    r"por lo general",
    r"geralmente",
    r"grunds[aä]tzlich",
    r"normalerweise",
    r"meistens",
    r"generell",
    r"d'habitude",
    r"di solito",
    r"meestal",
    r"ini mel",
    r"eppavum",
)

#: A standing order to the agent about its conduct ("never ... again", "from now on ...",
#: "stop ..."): said to the agent, about what it does from here on.
STANDING_ORDER = _words(
    r"from (?:now|here) on",
    r"going forward",
    r"in (?:the )?future",
    r"never (?:again|ever)",
    r"(?:don'?t|do not) (?:you )?ever",
    r"never (?:book|send|order|schedule|share|post|put|call|email|text|message|use|add|pay|buy|"
    r"charge|sign|accept|approve|confirm|cancel|reply|answer|suggest|recommend)",
    r"no more (?:bullet|emoji|summar|reminder|notification|message|e-?mail|call|text|suggestion|"
    r"exclamation|caveat|disclaimer|update|newsletter|alert)\w*",
    r"stop (?:using|sending|adding|calling|asking|giving|suggesting|booking|putting|writing)",
    r"nunca m[aá]s",
    r"no (?:me )?vuelvas a",
    r"deja de",
    r"nunca (?:me )?(?:reserves|mandes|env[ií]es|pidas|compres|pagues|agendes|pongas|llames)",
    r"nunca mais",
    r"(?:pare|para) de",
    r"nie (?:wieder|mehr)",
    r"h[oö]r auf",
    r"keine (?:emojis|nachrichten|erinnerungen|mails|e-mails|anrufe|benachrichtigungen|"
    r"vorschl[aä]ge|zusammenfassungen) mehr",
    r"plus jamais",
    r"arr[eê]te de",
    r"mai pi[uù]",
    r"smetti di",
    r"nooit meer",
    r"stop met",
    r"aldrig mer",
    r"sluta (?:med att|skicka|f[oö]resl[aå]|anv[aä]nda)",
    r"kabhi (?:bhi )?mat",
    r"ini mel",
)

#: A request to forget, delete or disregard something said ("olvida lo que te dije de ...").
FORGET_ASK = _words(
    r"(?:ignore|disregard|scratch|scrap|drop|leave) (?:what|everything|anything|all) (?:i|we) "
    r"(?:(?:just|ever|earlier) )?(?:said|told you|mentioned|wrote)",
    r"(?:scratch|scrap|ignore|disregard) (?:that|the) (?:\w+ ){1,3}(?:i|we) (?:said|told|mentioned|"
    r"gave)",
    r"(?:scratch|scrap|delete|forget|bin|drop|wipe) (?:anything|everything|all|whatever) "
    r"(?:you'?ve got|you have|you know|you hold|you kept) (?:about|on)",
    r"(?:don'?t|do not|stop) (?:keep|keeping|store|storing|remember|remembering|save|saving) "
    r"(?:\S+ ){0,7}?(?:in|on) (?:your |the )?(?:memory|memories|records|notes|system)",
    r"(?:olvida|olvid[ae]|borra|b[oó]rr[ae]|elimina)(?:lo)? (?:lo|todo|eso|esto|mi|mis|el|la|los|"
    r"las|que)\b",
    r"(?:esquece|esque[cç]a|esquecer|apaga|apague|apagar|deleta|remova|tira) (?:o|a|os|as|tudo|"
    r"isso|aquilo|aquele|aquela|meu|minha|que)\b",
    r"(?:vergiss|vergesst|vergessen sie|l[oö]sch|l[oö]sche|l[oö]schen sie|entfern|entferne)"
    r"(?: bitte)?,? (?:das|alles|was|mein|meine|meinen|die|den|dass)\b",
    r"(?:oublie|oubliez|efface|effacez|supprime|supprimez) (?:ce|tout|mon|ma|mes|le|la|les|que)\b",
    r"(?:dimentica|dimenticate|cancella|cancellate|elimina) (?:quello|tutto|il|la|i|le|mio|mia|"
    r"che)\b",
    r"(?:vergeet|verwijder|wis)(?: maar)? (?:wat|alles|dat|mijn|het|de)\b",
    r"(?:wil je|kun je) (?:vergeten|verwijderen|wissen)",
    r"(?:gl[oö]m|radera|ta bort)(?: bara)? (?:det|allt|vad|min|mitt|mina)\b",
    r"bhool ja(?:o|na|iye)",
    r"hata do",
    r"marandhu(?:du|dunga|dungo)",
)

#: Thanks, acknowledgements and goodbyes that keep nothing ("danke dir", "valeu", "merci").
THANKS = _words(
    r"thanks?(?: (?:you|a lot|so much|heaps|mate))?",
    r"thank you(?: so much| very much)?",
    r"cheers",
    r"ta",
    r"gracias",
    r"muchas gracias",
    r"obrigad[oa]",
    r"valeu",
    r"danke(?: sch[oö]n| dir| sehr)?",
    r"vielen dank",
    r"merci(?: beaucoup)?",
    r"grazie(?: mille)?",
    r"dhanyavaad",
    r"dhanyavad",
    r"shukriya",
    r"nandri",
    r"tack(?: s[aå] mycket)?",
    r"dank je(?:wel)?",
    r"dankjewel",
    r"bedankt",
)
_CONTENT_AFTER_THANKS = re.compile(r"\d|[A-Z][a-z]+ [A-Z]")


def scoped_to_now(sentence: str) -> bool:
    """Whether ``sentence`` scopes itself to this task or conversation."""
    return NOW_SCOPE.search(sentence) is not None


#: "From now on" and "without asking me" in ~35 languages: a standing order to the agent.
_STANDING_ELSEWHERE = vocabulary_pattern((*FROM_NOW_ON_WORDS, *WITHOUT_ASKING_WORDS))


def says_lasting(sentence: str) -> bool:
    """Whether ``sentence`` makes itself lasting ("always", "from now on", "usually")."""
    return (
        LASTING.search(sentence) is not None
        or LASTING_PATTERN.search(fold_apostrophes(sentence)) is not None
    )


def gives_standing_order(sentence: str) -> bool:
    """Whether ``sentence`` gives the agent a standing order about its conduct."""
    return (
        STANDING_ORDER.search(sentence) is not None
        or _STANDING_ELSEWHERE.search(fold_apostrophes(sentence)) is not None
    )


_AUTOMATICALLY = vocabulary_pattern(AUTOMATICALLY_WORDS)


def asks_for_automation(sentence: str) -> bool:
    """Whether ``sentence`` speaks of something done automatically, in any kept language
    ("forward those automatically", "自動で投稿して", "автоматично пересилайте"): with no
    question and no report of the user's life, a standing order for the agent."""
    return (
        _AUTOMATICALLY.search(sentence) is not None
        and not asks_a_question(sentence)
        and _OF_MY_THING.match(sentence) is None
    )


#: A sentence about something of the user's ("My heating comes on automatically at six",
#: "Mi nómina entra automáticamente"): a fact, not an order.
_OF_MY_THING = re.compile(
    r"\s*(?:my|our|mi|mis|nuestr[ao]s?|mon|ma|mes|notre|nos|mein|meine|unser|unsere|meu|minha|"
    r"meus|minhas|nosso|nossa|il mio|la mia|i miei|le mie|mijn|onze|moja|mój|moje|мой|моя|моё|мои|"
    r"мій|моя|моє|мої)\s",
    re.IGNORECASE,
)


def of_the_users_own_thing(sentence: str) -> bool:
    """Whether ``sentence`` opens with the user's own thing ("My heating ...", "Mi nómina
    ...", "Моя машина ..."): what follows describes it."""
    return _OF_MY_THING.match(sentence) is not None


#: A deletion verb of another kept language, opening a clause: an order to forget. Words of
#: three letters or fewer are left out (Dutch "wis" is Scots "was", Turkish "sil" a name).
_TELLS_TO_FORGET = vocabulary_pattern(
    tuple(w for w in (*FORGET_WORDS, *FORGET_MORE_WORDS) if len(w) > 3)
)
_CLAUSES = re.compile(r"[,.;:!?，。、！？]\s*")
#: At most this many words stand before the verb in its clause ("Ok, then please forget ...").
_BEFORE_THE_VERB = 3


_FORGET_AT_END = vocabulary_pattern(FORGET_AT_END_WORDS)
#: At most this many words (particles: है, नि, 요) follow a clause-final request to forget.
_AFTER_THE_VERB = 2


def tells_to_forget(sentence: str) -> bool:
    """Whether a clause of ``sentence`` opens (within :data:`_BEFORE_THE_VERB` words) with a
    deletion verb of a kept language other than English ("Gleymdu lykilorðinu ...",
    "תשכח את הקוד ...", "強積金個密碼唔好記住喇"), or, in a language whose verb ends the
    clause, ends (within :data:`_AFTER_THE_VERB` words) with a request to forget
    ("त्यो locker को combination बिर्सिदिनुहोस्", "eski adresimi unut"); a question never
    is one."""
    if asks_a_question(sentence) or "?" in sentence:
        return False
    for clause in _CLAUSES.split(sentence):
        found = _TELLS_TO_FORGET.search(clause)
        if found and len(clause[: found.start()].split()) <= _BEFORE_THE_VERB:
            return True
        for found in _FORGET_AT_END.finditer(clause):
            if len(clause[found.end() :].split()) <= _AFTER_THE_VERB:
                return True
    return False


def asks_to_forget_said(sentence: str) -> bool:
    """Whether ``sentence`` asks to forget or disregard something said, in any of the
    languages above."""
    return FORGET_ASK.search(sentence) is not None


def only_thanks(sentence: str) -> bool:
    """Whether ``sentence`` is thanks with at most a few words of praise around it."""
    found = THANKS.search(sentence)
    if found is None or _CONTENT_AFTER_THANKS.search(sentence):
        return False
    rest = re.findall(r"\w+", sentence[: found.start()] + " " + sentence[found.end() :])
    return len(rest) <= 8 and "?" not in sentence


_QUESTION = re.compile(r"\?\s*\W*$")


def asks_a_question(sentence: str) -> bool:
    """Whether ``sentence`` ends as a question (a question mark, then at most emoji or
    punctuation)."""
    return _QUESTION.search(sentence) is not None
