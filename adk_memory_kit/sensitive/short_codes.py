"""Short digit codes (a PIN, a door or alarm code, a one-time code) in a message that says
what they open or that they are secret, whatever its language.

A short code has no shape of its own: ``2580`` may be a price, a year, a door code. What
tells them apart is the message around it, so this layer asks of the *message*, not of a
cue right before the code, whether it names a thing a code opens (a lock, an alarm, a
safe, a locker, a gate, a wifi network, a card's PIN, a one-time code by SMS) or asks to
keep something secret ("don't tell anyone", "wag mo sabihin", "μην το πεις").

Guarantees: in such a message, a code of ``LEAST`` to ``MOST`` digits (``9-3-7-1-0``,
``715 208`` and ``279-256`` read whole) is a credential unless it is a year, a time, a date,
an amount or a measure, part of a longer number or word, a phone number, or labelled public in its
clause (an order, a room, a port, a card's last digits ...); a message that says its
number is public or not secret gives none. Linear: one pass for the message, one for codes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding
from adk_memory_kit.sensitive.public_numbers import (
    flight_digits,
    phone_shaped,
    public_label_before,
    says_public,
)
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from adk_memory_kit.sensitive.vocab import Vocabulary

LEAST = 4
MOST = 8
#: Things a code opens, in about thirty languages (lower case; whole words, or
#: word starts where marked ``*``: "hälytyskoodi", "wifin", "Schließfachcode").
_TRIGGER_WORDS = """
alarm*|alarma|alarme|allarme|hälytys*|larm*|safe|tresor*|coffre|caja fuerte|cassaforte|
kluis*|kassaskåp|lock|padlock|cadenas|candado|lucchetto|schloss|zámek|kłódka|cijferslot|
door|doorcode|gate|puerta|porte|portão|portail|cancello|tür*|haustür*|deur*|dør*|dörr*|garage*|
locker|casillero|casier|spind|schließfach*|armadietto|cacifo|keypad|key box|keybox|
key safe|lockbox|caixa de chaves|boîte à clés|förråd*|digicode*|combination|combo|vault|
wifi*|wi-fi*|wlan*|router|pos|atm|bancomat|cajero|pin|mpin|otp|sms|one-time|verification|
passcode|login|logging|log in|sign in|locked out|locked me out|
mailbox|postbox|buzón|briefkasten|brievenbus|postkasse|intercom|interphone|citofono|portero|
unlock|desbloque*|déverrouill*|entsperr*|sblocc*|voicemail|sim card|sim pin|puk|shed|
storage unit|kapu*|ajtó*|riasztó*|kaputelefon*|lépcsőház*|домофон*|сигналізац*|
сигнализац*|hwisil|pintu|pagar|kapı*|domofon*|bramk*|
сейф*|шафк*|шкафчик*|sejf*|szafk*|kluisje|brankas|loker|két sắt|tủ khóa|ตู้เซฟ|ล็อกเกอร์|
"""
#: The word "code" as other languages borrowed it (not the English one: "dress code", "source
#: code"): a code said in a language no other word of the lists reaches.
_CODE_WORDS = """
код*|kod|koda|kodi|kodu|kood*|koodi*|kode|kodea|kodas|kods|kóð*|kód*|cod|codul|codice|
código|codigo|pinkod*|pin-kod*|კოდ*|կոդ*|کد|کوډ|كود|קוד|কোড|कोड|
குறியீடு|รหัส|កូដ|ລະຫັດ|ကုဒ်|කේත*|ኮድ|コード|코드|代码|代碼|验证码|驗證碼
"""
_TRIGGER = Vocabulary(
    _TRIGGER_WORDS
    + "|暗証|密码|비밀번호|현관|도어락|비번|オートロック|金庫|ロッカー|保险箱|保險箱|储物柜|"
    + "密码锁|금고|사물함|"
    + _CODE_WORDS
)
_CODE = re.compile(
    r"\d(?<![\w.,/:+#$€£-]\d)(?<!\d[ -]\d)(?:(?:[ -]\d){3,7}|\d\d[ -]\d{3}|\d{3,7})"
    r"(?![\w/%€$£]|[.,:-]\d|[ -]\d)"
)
_YEAR = re.compile(r"19\d\d|20[0-4]\d")
_UNIT_AFTER = re.compile(
    r"[ \t]?(?:%|€|\$|£|円|元|kr\b|eur|usd|dollars?|euros?|km|kg|g\b|mg|ml|m\b|cm|mm|h\b|"
    r"hrs?|hours?|min|mins|minutes?|sec|seconds?|days?|steps|calories|kcal|people|times|"
    r"unread|new|emails?|messages?|notifications?|photos?|files?|followers?|likes?|views?|"
    r"items?|users?)\b",
    re.IGNORECASE,
)
_TIME_BEFORE = re.compile(r"(?:at|um|à|a las|alle|às|kl\.?)[ \t]*$", re.IGNORECASE)


def _public(text: str, start: int, end: int) -> bool:
    """Whether the code ``text[start:end]`` is a year, time, amount, measure, phone number
    or labelled public."""
    run = text[start:end]
    if _YEAR.fullmatch(run):
        return True
    if start and text[start - 1] in "$€£¥₹₦₱":
        return True
    if _UNIT_AFTER.match(text, end) or _TIME_BEFORE.search(text, max(0, start - 8), start):
        return True
    if phone_shaped(text, start, end) or flight_digits(text, start, end):
        return True
    return public_label_before(text, start)


@dataclass(frozen=True)
class ShortCodeDetector:
    """Short digit codes in a message that names a lock, an alarm, a PIN or a secret (see
    the module docstring); each code is a span."""

    least_digits: ClassVar[int] = LEAST  # a code has that many digits
    name: str = "short_code"

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        memo: dict[tuple[int, str], bool] = {}  # a flood repeats one context: read it once
        for m in _CODE.finditer(text):
            digits = sum(c.isdigit() for c in m.group(0))
            if not LEAST <= digits <= MOST:
                continue
            a, b = m.span()
            key = (min(a, 48), text[max(0, a - 48) : b + 12])
            public = memo.get(key)
            if public is None:
                public = _public(text, a, b)
                if len(memo) < 4096:
                    memo[key] = public
            if not public:
                found.append(Finding(CREDENTIAL, self.name, a, b))
        # the message is read only for a code that is not public by itself (most texts
        # have none: a year, a date, an amount)
        if not found or says_public(text):
            return []
        if not _TRIGGER.found_in(text) and not asks_secrecy(text):
            return []
        return found
