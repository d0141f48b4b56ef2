"""The login said with a password is redacted with it; a login with no password beside it,
or beside a masked one, is not."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import detect_sensitive, redact_for_store
from tests.support.redaction import assert_gone


@pytest.mark.parametrize(
    ("text", "login"),
    [
        ("my steam login is vortex_99 and the pw is Kestrel#2291", "vortex_99"),
        ("Usuario: marta.g84\nContraseña: Pez-Luna-77", "marta.g84"),
        ("Zugang zum Router — Benutzer: admin, Passwort: Haselnuss!4", "admin"),
        ("login do banco:\nrui.pinto@correio.pt\nSenha#Forte2024", "rui.pinto@correio.pt"),
    ],
)
def test_the_login_beside_a_password_is_redacted(text: str, login: str) -> None:
    kept = redact_for_store(text) or ""
    assert login not in kept
    assert "REDACTED" in kept


def test_the_companion_finds_what_the_cue_layers_leave() -> None:
    text = "login da escola:\nrui.pinto@correio.pt\nSenha#Forte2024"
    found = {text[f.start : f.end]: f.detector for f in detect_sensitive(text)}
    assert found.get("rui.pinto@correio.pt") == "login_companion"


@pytest.mark.parametrize(
    "text",
    [
        "My username on the forum is vortex_99, come say hi.",
        "db:\n  user: app_reader\n  password: ********   # kept in the vault",
    ],
)
def test_a_login_alone_is_no_companion(text: str) -> None:
    assert not any(f.detector == "login_companion" for f in detect_sensitive(text))


def test_the_login_of_a_login_phrase_goes_with_its_password() -> None:
    text = "the shared laptop login is kbanda / Zambezi@Falls2024, use it tonight"
    stored = redact_for_store(text)
    assert "Zambezi@Falls2024" not in stored and "kbanda" not in stored, stored


@pytest.mark.parametrize(
    ("text", "login"),
    [
        # no login word: the login is the password's pair, joined by a slash
        ("ދައްތާ resort staff portal: aishath.n / Maafushi@77 — roster check", "aishath.n"),
        (
            "جیمیلم: sara.ahmadi93@gmail.com / Shiraz!1372 — فقط فایلا رو دانلود کن",
            "sara.ahmadi93@gmail.com",
        ),
        # the login word of another language
        ("eAsistent\nuporabnik: mojca.zupan\ngeslo: Triglav!Jezero88", "mojca.zupan"),
    ],
)
def test_a_login_paired_with_its_password_or_named_in_more_languages_goes_with_it(
    text: str, login: str
) -> None:
    assert_gone(text, login)


def test_a_slash_pair_without_a_password_is_left() -> None:
    text = "the ratio is a.b / c.d in the sheet"
    assert not any(f.detector == "login_companion" for f in detect_sensitive(text))
