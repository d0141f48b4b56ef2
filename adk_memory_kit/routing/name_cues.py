"""The name a user asks to be called, read after (or before) a naming cue in any kept language.

A kept vocabulary of naming cues ("call me", "llámame", "зови меня", "叫我", "panggil aku",
"gọi mình là") per language, not per phrasing; the name is the one to three words the cue
points at: after it in most languages, before it where the verb comes last ("「ケンタ」って
呼んで", "Sunita didi भनेर बोलाउनुस्", "Elif de yeter"). In a script written without spaces
the name is the run of characters up to a particle or punctuation (at most eight code
points: Thai writes vowels and tones as marks).

Guarantee: reads at most :data:`MAX_CHARS` characters; returns ``None`` when no cue is found or
the words at the cue are not a name (a pronoun, an honorific alone, a negation).
"""

from __future__ import annotations

import re

MAX_CHARS = 400
#: The most characters of a name in a script written without spaces (Thai marks count).
_MOST_UNSPACED = 8

#: Cues after which the name follows.
_BEFORE_NAME = (
    # English
    "call me", "address me as", "refer to me as", "i go by", "go by", "know me as",
    "my name is", "my name's", "name's",
    # Spanish, Portuguese, Catalan, Galician
    "llámame", "llamame", "llámenme", "llámeme", "me llamo", "mi nombre es",
    "me chama de", "me chame de", "me chamem de", "chama-me", "chame-me", "trata-me por",
    "me trata por", "me trate por", "meu nome é", "me chamo", "em dic", "digue'm",
    # French, Italian
    "appelle-moi", "appelez-moi", "je m'appelle", "mon nom est", "chiamami", "chiamatemi",
    "mi chiamo", "il mio nome è",
    # German, Dutch, Scandinavian
    "nenn mich", "nennt mich", "nennen sie mich", "ich heiße", "ich heisse", "mein name ist",
    "noem me", "noem mij", "ik heet", "zeg maar", "zeg gewoon", "kalla mig", "jag heter",
    "kall meg", "jeg heter", "kald mig", "jeg hedder",
    # Slavic, Baltic, Finnic, Romanian, Hungarian, Greek, Turkish
    "mów do mnie", "mówcie do mnie", "nazywam się", "říkej mi", "říkejte mi", "jmenuji se",
    "volaj ma", "зови меня", "называй меня", "называйте меня", "обращайся ко мне",
    "обращайтесь ко мне", "меня зовут", "зви мене", "називай мене", "називайте мене",
    "звертайся до мене", "звертайтеся до мене", "мене звати", "kutsu minua", "kutsukaa minua",
    "nimeni on", "mă numesc", "numele meu e",
    "numele meu este", "szólíts", "a nevem", "λέγε με", "με λένε", "το όνομά μου είναι",
    "ismim",
    # Indonesian, Malay, Tagalog, Vietnamese, Swahili, Zulu, Arabic, Hebrew
    "panggil aku", "panggil saya", "panggil gw", "panggil gue", "nama saya", "namaku",
    "tawagin mo akong", "tawagin niyo akong", "ang pangalan ko ay", "gọi mình là", "gọi tôi là",
    "gọi em là", "gọi anh là", "gọi chị là", "tên tôi là", "tên mình là", "niite", "jina langu ni",
    "ngibize ngokuthi", "ungibize ngokuthi", "ngibizeni ngokuthi", "igama lami ngu", "ناديني",
    "اسمي", "תקרא לי", "תקראי לי", "קרא לי", "שמי",
    # scripts written without spaces
    "叫我", "称呼我", "稱呼我", "我叫", "我的名字是", "เรียกว่า", "เรียกฉันว่า", "เรียกผมว่า",
    "เรียกป้าว่า", "เรียกหนูว่า",
)  # fmt: skip
#: Cues before which the name stands (verb-final languages).
_AFTER_NAME = (
    "って呼んで", "と呼んで", "って呼んでください", "と呼んでください", "라고 불러", "이라고 불러",
    "라고 불러줘", "이라고 불러줘", "라고 불러주세요", "이라고 불러주세요", "भनेर", "कहकर",
    "बुलाओ", "बुलाइए", "de yeter", "diye hitap et", "diye seslen", "riittää",
)  # fmt: skip

_UNSPACED_SCRIPT = re.compile(r"[\u0e00-\u0e7f\u3040-\u9fff\uac00-\ud7af]")
_SPACED = re.compile(
    r"(?<![\w'’-])(?:"
    + "|".join(
        sorted(
            (re.escape(c) for c in _BEFORE_NAME if not _UNSPACED_SCRIPT.search(c)),
            key=len,
            reverse=True,
        )
    )
    + r")(?![\w-])"
    # a cue of a script written without spaces stands anywhere ("以后叫我小燕就行")
    + "|"
    + "|".join(
        sorted(
            (re.escape(c) for c in _BEFORE_NAME if _UNSPACED_SCRIPT.search(c)),
            key=len,
            reverse=True,
        )
    ),
    re.IGNORECASE,
)
_AFTER = re.compile(
    "|".join(sorted(map(re.escape, _AFTER_NAME), key=len, reverse=True)), re.IGNORECASE
)
_WORD = re.compile(r"[^\W\d_][\w'’.-]*")
#: A name in quotes of any script (the quoted text is group 1).
QUOTED_NAME = re.compile(r"[\"'«„“「『‘]([^\"'«»„“”「」『』‘’]{1,40})[\"'»“”」』’]")
_STOP = re.compile(r"[\s,.;:!?，。、！？…~]|就|吧|啦|呀|哦|好|了|嘛|นะ|ค่ะ|ครับ|จ้า|ได้|ก็")
#: Words that are never the name itself: pronouns, articles, honorifics alone, negations.
_NOT_A_NAME = frozenset(
    """
    me my i you your the a an just only not no never please pls plz back later now when
    if by as on at to in it that this sir madam mr mrs ms dr de da do la el le o um uma un
    una por favor bitte mich mir du sie ich nicht nie ne non pas ok okay yes si sí ja bana
    aja saja ya nha nhé nhe lah lor na nga po tá né aí nomás nada más così cosi so así asi
    assim ainsi tak так too also anche también também aussi auch ook
    """.split()
)
#: Honorifics a name is often said with ("anh Hùng", "Bang Udin"): skipped before the name.
_HONORIFICS = frozenset(
    """
    anh chị em bác cô chú ông bà mas mbak kak bang pak bu ibu don doña dona seu herr frau pani
    pan señor señora senhor senhora signor signora monsieur madame tito tita kuya ate
    """.split()
)


#: Cues that also mean something else ("叫我出门": tell me to leave; "call me back"):
#: read only where the router already named the preference (``plain=False``).
AMBIGUOUS_CUES = frozenset({"叫我", "call me", "niite", "go by", "name's"})


def name_after_cue(text: str, *, plain: bool = False) -> str | None:
    """The name ``text`` asks the user be called, read at a naming cue (see the module);
    ``plain``: the sentence must state it plainly, so :data:`AMBIGUOUS_CUES` are not read."""
    text = text[:MAX_CHARS]
    for match in _SPACED.finditer(text):
        if plain and match.group(0).lower() in AMBIGUOUS_CUES:
            continue
        rest = text[match.end() :]
        quoted = QUOTED_NAME.match(rest.lstrip())
        if quoted:
            return quoted.group(1).strip()
        if _UNSPACED_SCRIPT.match(rest[:1] or " "):
            name = _STOP.split(rest, maxsplit=1)[0][:_MOST_UNSPACED]
            if name:
                return name
            continue
        name = _words(rest, forward=True)
        if name:
            return name
    for match in _AFTER.finditer(text):
        before = text[: match.start()].rstrip()
        quotes = list(QUOTED_NAME.finditer(before))
        if quotes and quotes[-1].end() >= len(before) - 1:
            return quotes[-1].group(1).strip()
        name = _words(before, forward=False)
        if name:
            return name
    return None


def _words(text: str, *, forward: bool) -> str | None:
    """The one or two words at the start (``forward``) or end of ``text``, up to a break."""
    piece = re.split(r"[,.;:!?()\n]", text if forward else text[::-1], maxsplit=1)[0]
    piece = piece if forward else piece[::-1]
    words = _WORD.findall(piece)
    words = words[:2] if forward else words[-2:]
    if forward and len(words) > 1 and words[0].lower() in _HONORIFICS:
        words = words[1:2]
    kept: list[str] = []
    for word in words if forward else reversed(words):
        if word.lower().strip(".'’") in _NOT_A_NAME:
            break
        if forward and kept and not word[:1].isupper():
            break  # a second word joins the name only capitalised ("Baba Dlamini")
        kept.append(word.rstrip(".'’"))
        if len(kept) == 1 and not word[:1].isupper() and forward:
            break  # a lower-case word after the cue: the name is that one word
    if not kept:
        return None
    return " ".join(kept if forward else reversed(kept))
