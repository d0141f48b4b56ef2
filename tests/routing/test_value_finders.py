"""The offline router's value finders: a sentence naming two values states the one its clause
does not retire."""

from __future__ import annotations

import pytest

from adk_memory_kit.routing.value_finders import DEFAULT_FINDERS


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        # (the language of the replies: learning one is a fact, see the test below)
        ("language", "I gave up on Russian, these days answer me in Korean.", "Korean"),
        ("language", "Stopped the Dutch replies, write to me in Polish instead.", "Polish"),
        ("cabin_class", "Moving from premium economy to business on long hauls.", "business"),
        ("diet", "I used to be pescatarian but I'm fully vegan now.", "vegan"),
        ("seat", "Please don't give me a middle seat, the window is best.", "window"),
        ("currency", "Quote me in francs instead of euros.", "CHF"),
    ],
)
def test_the_value_a_clause_retires_is_not_the_one_saved(name: str, text: str, value: str):
    assert DEFAULT_FINDERS[name](text) == value


@pytest.mark.parametrize(
    "text",
    [
        "I'm learning Swedish on an app.",
        "quit my evening German class, doing Arabic with a tutor now",
        "I've been practising my French before the Lyon trip.",
    ],
)
def test_learning_a_language_names_no_language_for_the_replies(text: str):
    # user:pref_language is the language the user wants replies in; learning one is a fact
    assert DEFAULT_FINDERS["language"](text) is None
    assert DEFAULT_FINDERS["language"](text + " Reply to me in English.") == "English"


@pytest.mark.parametrize(
    "text",
    [
        "My wife and I only speak Greek at home.",
        "I'm fluent in Italian after five years in Milan.",
        "Swahili is my mother tongue but I work in English.",
        "I can manage a little of Japanese, mostly menus.",
    ],
)
def test_the_languages_someone_speaks_name_no_language_for_the_replies(text: str):
    # what the user speaks, and how well, is a fact; the replies' language is asked for
    assert DEFAULT_FINDERS["language"](text) is None
    assert DEFAULT_FINDERS["language"](text + " Please reply in German.") == "German"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Speak Dutch to me from now on.", "Dutch"),
        ("Could you just speak Korean?", "Korean"),
        ("Set the language to Polish.", "Polish"),
        ("My preferred language for answers is Hindi.", "Hindi"),
        # what the user can read is a wish for replies in it
        ("I only speak Spanish, sorry.", "Spanish"),
        ("My native language is Polish, so Polish is easier for me.", "Polish"),
    ],
)
def test_asking_to_be_spoken_to_in_a_language_still_names_it(text: str, value: str):
    assert DEFAULT_FINDERS["language"](text) == value


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("language", "Answer me in Portuguese.", "Portuguese"),
        # one value, even after a negation, is still the value the sentence names
        ("allergies", "I can't eat sesame at all.", "sesame"),
        ("diet", "I don't eat meat.", "vegetarian"),
        ("seat", "An aisle seat if you can.", "aisle"),
    ],
)
def test_a_sentence_with_one_value_keeps_it(name: str, text: str, value: str):
    assert DEFAULT_FINDERS[name](text) == value


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        # an allergy is named by a negation; the food that is fine comes after it
        (
            "allergies",
            "Never put walnuts in my food, I swell up; almonds don't bother me.",
            "walnuts",
        ),
        ("allergies", "I can't touch prawns, my throat closes, but crab is fine.", "prawns"),
        # "from" without a "to" after it is a place, not the old value
        ("cabin_class", "I fly from Glasgow in business; my assistant goes economy.", "business"),
        ("seat", "From now on an aisle seat, no more window seats.", "aisle"),
    ],
)
def test_a_negation_or_from_that_retires_nothing_keeps_the_first_value(
    name: str, text: str, value: str
):
    assert DEFAULT_FINDERS[name](text) == value


def test_a_sentence_naming_no_value_finds_none():
    assert DEFAULT_FINDERS["language"]("I like learning new things.") is None


@pytest.mark.parametrize(
    "text",
    [
        "My cousin has a lodger called Ravi.",
        "We hired a builder named Kowalski.",
        "His name is Theo.",
        "My aunt's name is Maureen.",
    ],
)
def test_someone_elses_name_is_not_the_users_preferred_name(text: str):
    assert DEFAULT_FINDERS["preferred_name"](text) is None


@pytest.mark.parametrize(
    "text",
    [
        "I'm bluefinch88 on Mastodon.",  # a service, not a name
        "My second name is Louise.",  # not what the user is called
        "My handle on the forum is Grizzly.",
        "I work at the Royal Marsden.",
    ],
)
def test_a_capitalised_word_without_a_naming_cue_is_no_preferred_name(text: str):
    assert DEFAULT_FINDERS["preferred_name"](text) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'd like to be called Robbie from now on.", "Robbie"),
        ("My name is Harriet but everyone calls me Hattie.", "Hattie"),
        ("My first name is Oluwaseun.", "Oluwaseun"),
    ],
)
def test_the_users_own_name_is_still_found(text: str, value: str):
    assert DEFAULT_FINDERS["preferred_name"](text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Aberdeen airport is the nearest one to our house.", "Aberdeen"),
        ("We usually fly out of Bristol.", "Bristol"),
        ("Cork is my regular airport.", "Cork"),
        ("My departure airport is always Leeds Bradford.", "Leeds Bradford"),
        ("Start every search from Lisbon.", "Lisbon"),
        # a code wins over a name
        ("I leave from Frankfurt, FRA, most weeks.", "FRA"),
    ],
)
def test_an_airport_is_found_by_name_as_well_as_by_code(text: str, value: str):
    assert DEFAULT_FINDERS["home_airport"](text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # the airport flown from wins over one only mentioned
        ("Luton airport is awful, so I fly out of Bristol these days.", "Bristol"),
        # a terminal, a weekday or where a trip home starts is not the home airport
        ("I always start at Terminal 3.", None),
        ("Friday airport runs are the worst.", None),
        ("We're flying from Madrid back to Cardiff.", None),
        ("I usually fly from the airport near me.", None),
    ],
)
def test_only_the_airport_the_user_flies_from_is_found(text: str, value: str | None):
    assert DEFAULT_FINDERS["home_airport"](text) == value


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        # CLDR's currency names in the user's language; the one a negation word retires is not
        # the value ("not in dollars", in any kept language)
        ("currency", "Preços sempre em reais, nada de dólar americano.", "BRL"),
        ("currency", "Die Preise bitte in Schweizer Franken, nicht in Euro.", "CHF"),
        ("currency", "Hesaplar hep Türk lirası olsun, dolar değil.", "TRY"),
        ("currency", "Put the prices in naira abeg.", "NGN"),
        ("currency", "Ceny podawaj w forintach? Nie, w złoty polski, nie w euro.", "PLN"),
        # CLDR's unit names: a unit named as a system, in the user's language
        ("units", "Las distancias en kilómetros, no en millas.", "metric"),
        ("units", "Le ricette in grammi e litri, per favore.", "metric"),
        ("units", "Gimme the weather in fahrenheit, always.", "imperial"),
        # a date format shown by its fields in any language, or by an example date
        ("date_format", "Datas no formato dia/mês/ano, por favor.", "DD/MM/YYYY"),
        ("date_format", "Daten immer als TT.MM.JJJJ schreiben.", "DD/MM/YYYY"),
        ("date_format", "Write dates as mm/dd/yyyy for me.", "MM/DD/YYYY"),
        ("date_format", "Dates like 2025-12-24 from now on.", "YYYY-MM-DD"),
        ("date_format", "Päivämäärät muodossa 24.12.2025, kiitos.", "DD/MM/YYYY"),
        ("date_format", "Dates like 12/24/2025 please.", "MM/DD/YYYY"),
    ],
)
def test_values_are_read_in_the_users_language(name: str, text: str, value: str):
    assert DEFAULT_FINDERS[name](text) == value


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # another language's unit or currency name that is an English word is no value in an
        # English sentence ("stop": feet in Czech; "mails": miles in Latvian)
        ("units", "stop using emojis in your replies"),
        ("units", "Always cc my accountant on the tax mails"),
        # an example date that does not tell day and month apart names no format
        ("date_format", "Dates like 03/04/2025 please."),
    ],
)
def test_no_value_is_read_from_a_look_alike(name: str, text: str):
    assert DEFAULT_FINDERS[name](text) is None
