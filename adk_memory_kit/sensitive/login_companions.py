"""The login said with a password: once a message gives a password, the user name or e-mail
named as its login in the same passage is half of the credential.

Choosing by harm: a login beside its password opens the account; stored alone it costs the
user little, stored with the password it hands the account over. So where a message holds a
credential finding, the value of a login cue ("login", "user", "usuario", "Benutzername",
"логин", "用户名" ...) that comes before the password, within :data:`REACH` characters, is
redacted with it ("my insta login is jaylen.vibez and pw is ...", "login da netflix:
carla@example.com / Pipoca@2023").

Guarantees: only a value after a login cue, before a credential finding, counts: an e-mail
address, else a handle with a digit, a dot, an underscore or an ``@``, else the word right
after ``:``, ``=`` or "is" (and its kin); with no cue, an e-mail or such a handle joined to
the password by a slash or a bar ("aishath.n / Maafushi@77"); never a span inside another
finding. Each is a
``credential`` finding of the ``login_companion`` detector. Linear in the text before each
password.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding
from adk_memory_kit.sensitive.failclosed import CUE_VALUE

DETECTOR = "login_companion"
#: How far before a password its login is looked for (characters).
REACH = 120
#: The detectors whose credential findings are passwords or PINs a login opens.
_PASSWORDS = frozenset({"password", "pin", "token", "password_shape", "login_phrase", CUE_VALUE})

_LOGIN_CUE = re.compile(
    r"(?<![\w@.])(?:log[ -]?in|logon|sign[ -]?in|user(?:[ _-]?(?:name|id))?|username|"
    r"usuario|usuário|utilizador|utilisateur|identifiant|benutzer(?:name)?|anmeldename|"
    r"nome utente|gebruikersnaam|gebruiker|användarnamn|brukernavn|brugernavn|käyttäjätunnus|"
    r"nazwa użytkownika|login|uživatel|felhasználónév|kullanıcı adı|kullanıcı|tên đăng nhập|"
    r"tài khoản|логин|пользователь|користувач|用户名|用戶名|账号|帳號|账户|ユーザー名|ユーザーid|"
    r"アカウント|아이디|사용자 이름|e-?mail|correo|courriel|acc(?:oun)?t|conta|cuenta|compte|"
    r"uporabnik|uporabniško ime|korisnik|korisničko ime|kasutaja|kasutajanimi|lietotājs|"
    r"lietotājvārds|naudotojas|vartotojas|používateľ|utilizator|nume de utilizator|χρήστης|"
    r"όνομα χρήστη|потребител|корисник|משתמש|שם משתמש|اسم المستخدم|مستخدم|نام کاربری|"
    r"उपयोगकर्ता|ব্যবহারকারী|pengguna|nama pengguna|mtumiaji|jina la mtumiaji|yusanem|"
    r"notandanafn|notandi)"
    r"(?![\w@])",
    re.IGNORECASE,
)
_EMAIL_FORM = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_HANDLE_FORM = r"[\w][\w.@-]*[\d._@][\w.@-]*"  # a digit, dot, underscore or @ in it
_EMAIL = re.compile(_EMAIL_FORM)
_HANDLE = re.compile(rf"(?<![\w@.]){_HANDLE_FORM}(?![\w@])")
#: A login right before its password, joined by a slash or a bar (no cue needed): an e-mail
#: or a handle.
_PAIR_BEFORE = re.compile(rf"(?<![\w@.+-])(?P<login>{_EMAIL_FORM}|{_HANDLE_FORM})[ \t]*[/|][ \t]*$")
_PAIR_REACH = 80
_AFTER_CONNECTOR = re.compile(
    r"(?:\s*[:=]\s*|\s+(?:is|es|est|ist|é|è|är|er|on|jest|je|是|は|=)\s+)"
    r"[\"'«“]?(?P<value>[^\s\"'»”,;/|]{3,64})"
)


def login_companions(text: str, findings: Iterable[Finding]) -> set[Finding]:
    """The login values said before each password finding of ``findings`` in ``text``."""
    found: set[Finding] = set()
    taken = [(f.start, f.end) for f in findings]
    passwords = sorted(
        f.start for f in findings if f.kind == CREDENTIAL and f.detector in _PASSWORDS
    )
    for start in passwords:
        lo = max(0, start - REACH)
        cues = list(_LOGIN_CUE.finditer(text, lo, start))
        span = _value(text, cues[-1].end(), start) if cues else None
        if span is None:
            # no cue: a login written as the password's pair ("aishath.n / Maafushi@77",
            # "sara@example.com | Shiraz!1372"), an e-mail or a handle just before it
            pair = _PAIR_BEFORE.search(text, max(0, start - _PAIR_REACH), start)
            span = pair.span("login") if pair is not None else None
        if span is None:
            continue
        a, b = span
        if any(x < b and a < y for x, y in taken):
            continue
        found.add(Finding(CREDENTIAL, DETECTOR, a, b))
    return found


def _value(text: str, lo: int, hi: int) -> tuple[int, int] | None:
    """The login's span between a cue (ending at ``lo``) and the password (at ``hi``)."""
    for pattern in (_EMAIL, _HANDLE):
        match = pattern.search(text, lo, hi)
        if match is not None:
            return match.span()
    connector = _AFTER_CONNECTOR.match(text, lo, hi)
    if connector is not None:
        return connector.span("value")
    return None
