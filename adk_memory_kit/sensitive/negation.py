"""Whether a word is negated, in many languages: one vocabulary of negation words.

A sentence whose every health word has a negation word next to it ("no allergies", "kein
Diabetes", "нет аллергии", "alerjim yok", "ez dudala alergiarik", "糖尿病はない") states that
someone does *not* have a condition; the health head then needs more to call it health.
Negation stands before the word in most languages and after it in many (Turkish, Japanese,
Hindi, Basque), so both sides are read: up to ``BEFORE`` words before, ``AFTER`` words after
(in scripts written without spaces: that many characters times four).

Guarantee: :func:`negated` is linear in the window it reads; the vocabulary is words, not
phrasings (a kept list, in the languages the kit's corpora were written in).
"""

from __future__ import annotations

import re

BEFORE = 3
AFTER = 2

_WORDS = frozenset(
    """
    no not none never without nor isn't don't doesn't didn't haven't hasn't wasn't aren't
    sin sem nunca ningún ninguna ningun nenhum nenhuma não nao nessun nessuna senza mai non
    cap tampoc pas aucun aucune sans jamais ni kein keine keinen keiner keinerlei nicht ohne
    nie geen niet zonder ingen inga inget ikke inte utan uten uden aldrig aldri ei ole eikä
    ilman nema nemam brak bez nemá nemám žiadne žádné žiadnu ne nisam nikakve nikakvih
    нет не ни без нету ні немає жодної ніякай ніякіх няма нямам nu fără fara niciun nicio
    nincs nem nélkül semmi δεν όχι χωρίς κανένα καμία yok değil yoxdur yox deyil tidak tak
    bukan tanpa tiada wala hindi walang không chẳng hana sina hakuna bila ez ezta gabe
    لا ليس بدون مش مفيش معندوش ماعندي نه ندارم ندارد نیست بدون אין לא בלי नहीं नही बिना
    nahi nahin nai না নেই இல்லை amuma የለም არ არა ոչ չկա ekki engin ekkert nav nē nėra
    pole ilma байхгүй үгүй නෑ නැහැ nta ntabwo žádnou žádný žádná žádné žádnu nemám nemá
    voch chka chunem ar nadaram nadarad nist ماعنديش ماعندي ماعندو معنديش te nni
    """.split()
)
#: Negation in scripts written without spaces: found anywhere in the window.
_UNSPACED = (
    "ไม่",
    "ない",
    "なし",
    "無し",
    "ありません",
    "없",
    "아니",
    "没有",
    "沒有",
    "无",
    "無",
    "不",
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_UNSPACED_SCRIPT = re.compile(r"[\u0e00-\u0e7f\u3040-\u9fff\uac00-\ud7af]")


def negated(text: str, start: int, end: int) -> bool:
    """Whether the word at ``text[start:end]`` has a negation word within ``BEFORE`` words
    before it or ``AFTER`` words after it."""
    before = _WORD.findall(text[max(0, start - 48) : start].lower())[-BEFORE:]
    after = _WORD.findall(text[end : end + 40].lower())[:AFTER]
    if not _WORDS.isdisjoint(before) or not _WORDS.isdisjoint(after):
        return True
    if _UNSPACED_SCRIPT.search(text, max(0, start - 1), min(len(text), end + 1)) is None:
        return False
    window = text[max(0, start - 4 * BEFORE) : end + 4 * AFTER]
    return any(n in window for n in _UNSPACED)


def negated_before(text: str, words: int = 2) -> bool:
    """Whether one of the last ``words`` words of ``text`` is a negation word ("no en",
    "nie w", "not in": the value named next is one the user does not want)."""
    return not _WORDS.isdisjoint(_WORD.findall(text[-48:].lower())[-words:])
