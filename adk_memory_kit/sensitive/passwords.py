"""Passwords, PINs and keyed secrets written in prose, in English, German, French and Spanish.

No library reads prose, so this is the kit's own rule, kept small: a keyword (``password``,
``Passwort``, ``mot de passe``, ``contraseña``, ``api key``, ``PIN`` ...) is found by one
pattern, then the words after it are read one by one (at most a few, each bounded) until a
connector (``is``, ``:``, ``=``, ``ist``, ``lautet``, ``est``, ``c'est``, ``es``, or ``to``
after "set"/"changed") and the value after it. The value alone is the finding, so the sentence
around it survives. A value that is a talk word ("the password is too short", "das Passwort
ist zu kurz") is not a secret. Keyed tokens (``api key``, ``token``, ``secret``) must also
look like a token: long enough and random enough (``detect-secrets``' Shannon entropy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding, LiteralHeads
from adk_memory_kit.sensitive.scan import TextScan, keyword_matches, register_heads
from adk_memory_kit.sensitive.vendor import entropy_at_least

_L = r"A-Za-z\u00c0-\u024f"  # letters, Latin scripts

#: Password words (value: anything that is not a talk word).
_PASSWORD_WORDS = (
    r"pass(?:word|wd|phrase|code)s?|pwd|pw|pword|passwort(?:es)?|kennwort(?:es)?|"
    r"zugangscode|zugangsdaten|mot de passe|mot-de-passe|mdp|contrase(?:ñ|n)a|"
    r"clave(?: de acceso)?|code d'accès|wifi key|wlan-schlüssel|wlan-key|"
    r"app password|master password|passe|pass"
)
#: Keyed-token words (value: must look like a token).
_TOKEN_WORDS = (
    r"bearer|api[ _-]?keys?|secret(?:[ _-]?key)?s?|(?:access|auth|refresh|bearer|session|api|bot|"
    r"personal access|deploy|webhook)[ _-]?tokens?|tokens?|client[ _-]?secrets?|"
    r"access[ _-]?keys?|secret access key|private[ _-]?key|signing key|webhook secret|"
    r"schlüssel|clé(?: d'api)?|llave"
)
#: PIN words (value: 3-8 digits).
_PIN_WORDS = (
    r"pin(?:[ -]?(?:code|number|nummer))?|cvv2?|cvc2?|csc|security code|geheimzahl|"
    r"code pin|code secret|nip|código pin|codigo pin|card verification (?:code|value)"
)

_KEYWORD = re.compile(
    rf"(?<![{_L}0-9])(?:(?P<pin>{_PIN_WORDS})|(?P<pw>{_PASSWORD_WORDS})|(?P<tok>{_TOKEN_WORDS}))"
    rf"(?P<suffix>(?:[_-][A-Za-z0-9]{{1,20}}){{0,4}})(?![{_L}0-9])",
    re.IGNORECASE,
)
#: Substrings one of which every keyword contains: text without any skips the pattern.
_KEYWORD_NEEDLES = (
    "pass", "pw", "kennw", "mot de", "mot-de", "mdp", "contrase", "clave", "code", "wifi",
    "wlan", "pin", "cvv", "cvc", "csc", "geheim", "nip", "key", "secret", "token", "bearer",
    "schlüssel", "clé", "llave", "zugang",
)  # fmt: skip
#: Where a keyword can start (lower case): every alternative of ``_KEYWORD`` begins with one.
_KEYWORD_HEADS = LiteralHeads(
    r"pin|cvv|cvc|csc|security|geheim|code|nip|c[oó]digo|card verif|pass|pw|kennw|zugang|"
    r"mot|mdp|contrase|clave|wifi|wlan|app pass|master|bearer|api|secret|access|auth|"
    r"refresh|session|bot|personal|deploy|webhook|token|client|private|signing|schl|clé|llave"
)
_KEYWORD_SET = register_heads("password", _KEYWORD_HEADS)
#: A bare "pass" counts only as "my pass is ...", "pass: ...", "pass=..." (not "boarding pass").
_BARE_PASS = re.compile(r"pass|passe", re.IGNORECASE)

#: "boarding pass", "bus pass", "day pass": a pass that is a ticket, not a password.
_NOT_A_PASSWORD_PASS = re.compile(
    r"(?:boarding|bus|day|season|ski|hall|gym|park|rail|travel|museum|train|metro|week|"
    r"weekly|monthly|annual|festival|backstage|press|visitor|guest|free|first|second|"
    r"hall|mountain|transit|ferry|car|parking|fast|vip)[ \t]*$"
)

#: A noun right after the keyword makes it a modifier ("password field", "token limit").
_COMPOUND_NOUNS = frozenset(
    "field fields box page form prompt screen reset resets manager managers policy policies "
    "hint hints rules rule requirements requirement length strength change changes expiry "
    "expiration complexity history vault dialog link input entry protection hash hashes file "
    "generator rotation limit limits lockout recovery budget count usage cost costs window "
    "size type types format pad".split()
)
_CONNECTORS = frozenset(
    "is was are = : := -> => ist lautet war sind est c'est était es era será sería "
    "it's its it’s isch".split()
)
#: "to"-like connectors count only after a setting verb before the keyword.
_TO_CONNECTORS = frozenset("to auf in en à a as zu".split())
_SETTER = re.compile(
    r"(?<![a-z])(?:set|sets|setting|changed?|changing|reset|updated?|switched|made|"
    r"geändert|ändere|änderte|gesetzt|gestellt|changé|modifié|mis|cambié|cambiado|"
    r"cambiada|puse|puesto)(?![a-z])"
)

#: Words that, as the value, say the text talks about a secret instead of giving one.
PROSE_WORDS = frozenset(
    """
    reset expired expiring expires wrong incorrect correct invalid valid required missing
    empty blank changed unchanged updated saved stored same different weak strong long short
    too not the a an my your our their his her its this that these those it being been case
    protected manager managers policy policies field in out on off at for to of from with by
    about up down fine ok okay good bad great easy hard simple located here there below above
    attached enclosed written printed taped sent shared known unknown secure safe set needed
    necessary optional sensitive private public confidential encrypted hashed hidden visible
    still now also just only what which who how why where when something nothing anything
    everything working broken true false none null yes no and or but so because if ready
    available shown listed given generated i we you he she they me him them us again
    every each all any some soon later today tomorrow yesterday please can cannot will would
    should must may might be is are was were has have had do does did get got use used very
    really more less most least as into onto over under through during once twice never
    always often sometimes usually other another whole part need needs change changes rotate
    rotated work works worked login log sign email account accounts via required. rules rule
    requirements length limit limits strength hint hints prompt prompts screen page link
    field form box dialog expiry expiration complexity reuse history manager vault stolen
    leaked compromised forgotten forgot lost locked same. asked asking saying says said
    one two three four five six seven eight nine ten first last new old current previous
    temporary default standard generic wifi wlan e-mail mail bank online of? it? this? that?
    zu nicht kein keine falsch richtig abgelaufen geändert sicher unsicher lang kurz neu alt
    der die das ein eine mein meine dein deine im am noch schon auch nur für bei ist war
    gespeichert vergessen gesperrt leer trop pas court courte long longue faux fausse expiré
    expirée changé changée oublié perdu le la les un une mon ma mes ton ta son sa du de des
    dans sur encore aussi vide sécurisé demasiado no muy corto corta largo larga incorrecto
    incorrecta caducado caducada cambiado olvidé olvidado el la los las un una mi tu su del
    en otra otro nuevo nueva vacío segura seguro return self def lambda await yield
    """.split()
)

_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019",
           "\u00ab": "\u00bb", "\u201e": "\u201c", "\u201a": "\u2018"}  # fmt: skip
_TOKEN = re.compile(r"\S{1,200}")
#: The key that gives a name's value on the next line (Kubernetes and compose ``env`` lists).
_VALUE_KEYS = frozenset({"value:", "value=", "val:", "default:"})
_GAP = re.compile("[ \t\u00a0\n]*")
_WINDOW = 320
_MAX_FILLERS = 5
_UNITS = re.compile(
    r"\s*(?:m|km|mi|ft|metres?|meters?|miles?|feet|yards?|blocks?|minutes?|mins?|"
    r"%|px|ms|s|mb|gb|kb|chars?|characters?|digits?|zeichen|caractères|caracteres)\b",
    re.IGNORECASE,
)
_SECRETISH = re.compile(r"[0-9]|[^\w\s]|(?<=[a-zà-ÿ])[A-Z]")
_TRAIL = ".,;:)]}>\"'\u201d\u2019\u00bb"


def _quoted(text: str, start: int, limit: int) -> tuple[int, int] | None:
    close = _QUOTES.get(text[start])
    if close is None:
        return None
    end = text.find(close, start + 1, min(limit, start + 160))
    if end < 0:
        return None
    inner = text[start + 1 : end]
    if len(inner.strip()) < 3 or "\n" in inner:
        return None
    return start + 1, end


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while end > start and text[end - 1] in _TRAIL:
        end -= 1
    while start < end and text[start] in "([{<":
        start += 1
    return start, end


def _is_prose(value: str) -> bool:
    word = value.strip("!?.,;:").lower()
    return word in PROSE_WORDS or word.startswith(("http://", "https://", "www."))


_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_+/=.:-]+")
_KINDS = (re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"\d"))
_LOWER_WORD = re.compile(r"[a-z]+")


def _looks_like_token(value: str) -> bool:
    if len(value) < 12 or not _TOKEN_CHARS.fullmatch(value):
        return False
    kinds = sum(p.search(value) is not None for p in _KINDS)
    # entropy over k distinct characters is at most log2(k): 3.0 needs 8 of them
    return kinds >= 2 and len(set(value)) >= 8 and entropy_at_least(value, 3.0)


@dataclass(frozen=True)
class PasswordDetector:
    """Passwords, PINs and keyed secrets after their keyword; the value is the span."""

    name: str = "password"

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        """:meth:`find` on a text read once for every detector."""
        text = scan.text
        found: list[Finding] = []
        covered = -1
        keywords = keyword_matches(scan, _KEYWORD_SET, _KEYWORD, _KEYWORD_HEADS, _KEYWORD_NEEDLES)
        memo: dict[tuple[str, int, bool], tuple[int, int] | None] = {}
        for kw in keywords:
            if kw.start() < covered:
                continue
            # the outcome depends only on the text around the keyword: a text that repeats
            # one context many times (a flood) is read once per distinct context
            lo, hi = max(0, kw.start() - 40), min(len(text), kw.end() + _WINDOW + 24)
            key = (text[lo:hi], kw.start() - lo, hi == len(text))
            if key in memo:
                rel = memo[key]
                span = None if rel is None else (rel[0] + kw.start(), rel[1] + kw.start())
            else:
                span = self._value(text, kw)
                if len(memo) < 4096:
                    memo[key] = (
                        None if span is None else (span[0] - kw.start(), span[1] - kw.start())
                    )
            if span is not None:
                kind = "pin" if kw.group("pin") else "token" if kw.group("tok") else "password"
                found.append(Finding(CREDENTIAL, kind, span[0], span[1]))
                covered = span[1]
        return found

    def _value(self, text: str, kw: re.Match[str]) -> tuple[int, int] | None:
        ks, ke = kw.span()
        limit = min(len(text), ke + _WINDOW)
        newline = text.find("\n", ke, limit)
        line_end = limit if newline < 0 else newline
        # the value on the next line: after a label ("password:\n  hunter2"), or a keyword
        # alone on its line (a form read by OCR: "Password\nHunter22!"), whose value must
        # then be the next line's first word (not "# made with: kubectl ...")
        next_line_only = False
        if newline >= 0 and not text[ke:line_end].strip(" \t:=\"'"):
            next_line_only = not text[ke:line_end].strip(" \t\"'")
            nxt = text.find("\n", newline + 1, limit)
            line_end = limit if nxt < 0 else nxt
        suffix = kw.group("suffix").lower().replace("-", "_").split("_")
        if suffix[-1] in _COMPOUND_NOUNS:
            return None  # "password_hash", "api_key_rotation": a column or setting, not a label
        bare_pass = bool(kw.group("pw")) and _BARE_PASS.fullmatch(kw.group(0)) is not None
        if bare_pass and _NOT_A_PASSWORD_PASS.search(text[max(0, ks - 40) : ks].lower()):
            return None
        setter: bool | None = None  # a setting verb before the keyword: read when needed
        pos, fillers, connected, labelled = ke, 0, False, False
        # closing quotes of a JSON key ("password": "x")
        while pos < line_end and text[pos] in "\"'`]":
            pos += 1
        while pos < line_end:
            c = text[pos]
            if c in " \t\u00a0\n":
                pos = _GAP.match(text, pos, line_end).end()  # type: ignore[union-attr]
                if pos >= line_end:
                    return None
                c = text[pos]
            if c in "=!:-":  # an operator, not a word
                if text.startswith(("==", "!="), pos):
                    return None  # a comparison in code ("if password == expected")
                if c in ":=" or text.startswith(("->", "=>"), pos):
                    labelled = labelled or fillers == 0
                    connected = True
                    pos += 2 if text.startswith(("->", "=>", ":="), pos) else 1
                    continue
            token = _TOKEN.match(text, pos, line_end)
            if token is None:
                return None
            word = token.group(0)
            if next_line_only:
                if word.lower() in _VALUE_KEYS:  # "- name: DB_TOKEN\n  value: ..." (YAML env)
                    next_line_only, connected, labelled = False, True, True
                    pos = token.end()
                    continue
                if word.endswith(":") or not self._direct_ok(kw, word, bare_pass):
                    return None  # another key ("valueFrom:"), or no secret's shape
                return self._accept(text, kw, pos, token.end(), line_end, labelled)
            if connected:
                return self._accept(text, kw, pos, token.end(), line_end, labelled)
            lower = word.lower().rstrip(",")
            if lower in _CONNECTORS:
                connected, pos = True, token.end()
                continue
            if lower in _TO_CONNECTORS:
                if setter is None:
                    before = text[max(0, ks - 40) : ks].lower()
                    setter = _SETTER.search(before) is not None
                if setter:
                    connected, pos = True, token.end()
                    continue
            if word.endswith(":") and len(word) > 1 and fillers < _MAX_FILLERS:
                connected, pos = True, token.end()  # "for the portal: hunter2"
                continue
            if fillers == 0 and lower.strip(".,;:!?") in _COMPOUND_NOUNS:
                return None  # "password field is ...", "API key rotation is ...": a noun
            if self._direct_ok(kw, word, bare_pass):
                return self._accept(text, kw, pos, token.end(), line_end, labelled)
            if word[-1] in ".!?;" or fillers >= _MAX_FILLERS or bare_pass:
                return None
            fillers += 1
            pos = token.end()
        return None

    @staticmethod
    def _direct_ok(kw: re.Match[str], word: str, bare_pass: bool) -> bool:
        """A value straight after the keyword ("pw hunter22") must look like a secret."""
        value = word.strip(_TRAIL)
        if kw.group("pin"):  # "PIN 4821", "my cvv 123"
            return 3 <= len(value) <= 8 and value.isdigit()
        if bare_pass:
            return False
        if len(value) < 4 or _is_prose(value):
            return False
        if kw.group("tok"):
            return _looks_like_token(value)
        return _SECRETISH.search(value) is not None

    def _accept(
        self,
        text: str,
        kw: re.Match[str],
        start: int,
        token_end: int,
        line_end: int,
        labelled: bool,
    ) -> tuple[int, int] | None:
        """The value's span. ``labelled``: the keyword is a label (``password:``,
        ``api_key=``), so the value is a secret by position: a keyed token needs no
        randomness and a labelled line ("Password: My Dog Rex 2019") runs to its end."""
        quoted = _quoted(text, start, line_end)
        if quoted is not None:
            value = text[quoted[0] : quoted[1]]
            if kw.group("pin") and not value.strip().isdigit():
                return None
            if kw.group("tok") and not (labelled or _looks_like_token(value.strip())):
                return None
            return quoted
        start, end = _trim(text, start, token_end)
        if start >= end:
            return None
        if text[end - 1] in "!?" and end - 1 > start and not text[start:end].rstrip("!?"):
            return None
        value = text[start:end]
        if kw.group("pin"):
            if not (3 <= len(value) <= 8 and value.isdigit()) or _UNITS.match(text, end):
                return None
            return start, end
        if labelled and _is_prose(value):
            rest = _labelled_line(text, start, line_end)
            if rest is not None:
                return rest
        if "phrase" in kw.group(0).lower():
            phrase = _PASSPHRASE.match(text, start, min(line_end, start + 160))
            if phrase is not None and not any(
                w in PROSE_WORDS for w in phrase.group(0).split()[1:]
            ):
                return start, phrase.end()  # "correct horse battery staple"
        if _is_prose(value) or len(value) < 3:
            return None
        if kw.group("tok"):
            if labelled and len(value) >= 6 and _SECRETISH.search(value):
                return start, end
            return (start, end) if _looks_like_token(value) else None
        if _LOWER_WORD.fullmatch(value) and "phrase" in kw.group(0).lower():
            return start, _phrase_end(text, start, line_end)
        if value.isdigit() and len(value) < 4:
            return None
        if _IP_ADDRESS.fullmatch(value):
            return None  # a log line ("Failed password for root from 203.0.113.9")
        return start, end


_IP_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?")
#: Four to eight lower-case words: the shape of an xkcd-style passphrase.
_PASSPHRASE = re.compile(r"[a-z]+(?:[ \t]+[a-z]+){3,7}")


_CUT = re.compile(r"[.!?;](?:\s|$)")


def _labelled_line(text: str, start: int, line_end: int) -> tuple[int, int] | None:
    """After a label, a short rest of line with a digit and no further talk word is the value
    ("Password: My Dog Rex 2019"); "password: changed on 2024-01-01" is not."""
    stop = min(line_end, start + 80)
    cut = _CUT.search(text, start, stop)
    end = cut.start() if cut else stop
    words = text[start:end].split()
    if not 2 <= len(words) <= 6 or not any(c.isdigit() for c in text[start:end]):
        return None
    if any(_is_prose(w) for w in words[1:]):
        return None
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


_PHRASE_WORDS = re.compile(r"[a-z]+(?:[ \t]+[a-z]+){0,11}")


def _phrase_end(text: str, start: int, line_end: int) -> int:
    """A passphrase of plain words runs to the end of its sentence (at most 12 words)."""
    match = _PHRASE_WORDS.match(text, start, line_end)
    return match.end() if match else start


#: "use 'X' to log in", "log in with X", "user admin / X", "creds: root:toor".
_USE_TO_LOGIN = re.compile(
    r"(?<![A-Za-z])(?:use|try|enter|type|nimm|benutze|verwende|utilise|utilisez|usa|usá|use)"
    r"[ \t]{1,3}(?P<q>[\"'`\u201c\u2018\u00ab\u201e])(?P<v>[^\s\"'`\u201d\u2019\u00bb\u201c]"
    r"[^\"'`\u201d\u2019\u00bb\u201c\n]{2,80})[\"'`\u201d\u2019\u00bb\u201c][ \t]{1,3}"
    r"(?:to|for|when|um|pour|para)[ \t]{1,3}(?:the[ \t]+)?(?:log|sign|get|anmelde|"
    r"einzuloggen|se connecter|connecter|iniciar|entrar|access)",
    re.IGNORECASE,
)
_LOGIN_WITH = re.compile(
    r"(?<![A-Za-z])(?:log(?:ged)?[ \t-]?in|sign(?:ed)?[ \t-]?in|anmelden|einloggen|"
    r"connecte[zr]?|conectar(?:se)?|entrar)[ \t]{1,3}(?:with|mit|avec|con)[ \t]{1,3}"
    r"(?:the[ \t]+)?(?P<v>[^\s,;]{4,64})",
    re.IGNORECASE,
)
_LOGIN_PAIR = re.compile(
    r"(?<![A-Za-z])(?:user(?:[ _-]?name)?|usr|login|log-?in|user[ _-]?id|account|benutzer"
    r"(?:name)?|nutzer|utilisateur|identifiant|usuario|creds|credentials|zugangsdaten|"
    r"identifiants|credenciales)[ \t]{0,3}(?:(?:is|are|ist|sind|est|es)[ \t]{1,3})?"
    r"(?:[:=][ \t]{0,3})?[^\s,;/|:]{2,64}[ \t]{0,3}(?:[/|][ \t]{0,3}|:(?=\S))"
    r"(?:(?:pw|pwd|pass(?:word)?|passwort|kennwort|mdp|contrase(?:ñ|n)a|clave)[ \t]{0,3}"
    r"(?:[:=][ \t]{0,3})?(?=\S{3}))?"
    r"(?P<v>[^\s,;|]{3,64})",
    re.IGNORECASE,
)


#: Where each pattern's match can start (lower case): it is tried only there.
_LOGIN_HEADS = {
    _USE_TO_LOGIN: LiteralHeads("use|try|enter|type|nimm|benutze|verwende|utilise|usa|us\u00e1"),
    _LOGIN_WITH: LiteralHeads("log|sign|anmelden|einloggen|connecte|conectar|entrar"),
    _LOGIN_PAIR: LiteralHeads(
        "user|usr|log|account|benutzer|nutzer|utilisateur|identifiant|usuario|cred|zugangsdaten"
    ),
}
_LOGIN_SETS = {
    _USE_TO_LOGIN: register_heads("login_use", _LOGIN_HEADS[_USE_TO_LOGIN]),
    _LOGIN_WITH: register_heads("login_with", _LOGIN_HEADS[_LOGIN_WITH]),
    _LOGIN_PAIR: register_heads("login_pair", _LOGIN_HEADS[_LOGIN_PAIR]),
}
_LOGIN_PATTERNS = (
    (_USE_TO_LOGIN, ("log", "sign", "get", "anmelde", "einzuloggen", "connecter", "iniciar",
                     "entrar", "access")),
    (_LOGIN_WITH, ("log", "sign", "anmelden", "einloggen", "connect", "conectar", "entrar")),
    (_LOGIN_PAIR, ("user", "usr", "login", "log-in", "account", "benutzer", "nutzer",
                   "utilisateur", "identifiant", "usuario", "cred", "zugang")),
)  # fmt: skip


@dataclass(frozen=True)
class LoginPhraseDetector:
    """A password given without its keyword: "use 'X' to log in", "log in with X",
    "user admin / X", "creds: root:toor". The value must look like a secret."""

    name: str = "login_phrase"

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        """:meth:`find` on a text read once for every detector."""
        text, lower = scan.text, scan.lower
        found: list[Finding] = []
        for pattern, needles in _LOGIN_PATTERNS:
            if not any(n in lower for n in needles):
                continue
            heads = _LOGIN_HEADS[pattern]
            for m in keyword_matches(scan, _LOGIN_SETS[pattern], pattern, heads, needles):
                start, end = _trim(text, m.start("v"), m.end("v"))
                value = text[start:end]
                if len(value) < 3 or _is_prose(value):
                    continue
                if pattern is not _USE_TO_LOGIN and _SECRETISH.search(value) is None:
                    continue
                if pattern is _LOGIN_WITH and (
                    "@" in value
                    or value.lower()
                    in ("google", "apple", "facebook", "github", "microsoft", "sso", "okta")
                ):
                    continue
                found.append(Finding(CREDENTIAL, self.name, start, end))
        return found
