"""Write ``adk_memory_kit/routing/value_names_data.py``: currency and unit names as users
write them, in the languages of the kit's users (``LANGUAGES``).

Usage::

    python benchmarks/value_names_build.py   (needs the dev extra's ``babel``)

Currencies: for each currency some territory uses today, its CLDR display name and plural
forms in each of those languages (every currency in the world's main languages, ``WORLD``;
the others only for the territories where they are official), its symbol where it is
written outside ASCII (₺, zł, ₦) and no other current currency shares it, and the one word
of its names that at least two languages share (the currency's own noun: "naira", "rand",
"złoty", "baht"); each lower-cased, mapped to the ISO code and whether English writes it
so (a sentence that reads as English is read for English names only: "stop" is Czech for feet,
"mails" Latvian for miles). Units: the long and short names and plural forms of the length,
mass, volume, area and temperature units, mapped to ``metric`` or ``imperial``. A name two
currencies (or both systems) share is left out, and so is any name of two letters or fewer
(``mi`` is Spanish for "my", ``ha`` for "has"), but a few short unit symbols (``km``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from pathlib import Path

from babel import Locale, localedata
from babel.languages import get_official_languages
from babel.numbers import get_territory_currencies

OUT = Path(__file__).resolve().parents[1] / "adk_memory_kit/routing/value_names_data.py"

METRIC = (
    "length-kilometer length-meter length-centimeter length-millimeter mass-kilogram mass-gram "
    "volume-liter volume-milliliter volume-centiliter temperature-celsius area-hectare "
    "area-square-meter area-square-kilometer speed-kilometer-per-hour"
).split()
IMPERIAL = (
    "length-mile length-foot length-inch length-yard mass-pound mass-ounce mass-stone "
    "volume-gallon volume-gallon-imperial volume-fluid-ounce volume-cup volume-pint "
    "volume-quart temperature-fahrenheit area-acre area-square-foot area-square-mile "
    "speed-mile-per-hour"
).split()
#: short unit names of two letters kept (their other senses are rare in a units sentence)
SHORT_UNITS = {"km", "kg", "cm", "mm", "ml", "lb", "oz", "ft", "°c", "°f"}
_WORD = re.compile(r"[^\W\d_]+")


#: The languages in which every currency's names are read (the others: only the names of
#: the currencies of the territories where the language is official).
WORLD = ("en", "es", "fr", "de", "pt", "ru", "ar", "zh", "ja", "hi", "it")


def current_currencies() -> dict[str, set[str]]:
    """The ISO codes some territory uses today, each with the languages its names are read
    in: :data:`WORLD` and the official languages of the territories that use it."""
    codes: dict[str, set[str]] = defaultdict(lambda: set(WORLD))
    for territory in Locale("en").territories:
        if territory.isalpha() and len(territory) == 2:
            spoken = {
                lang.split("_")[0] for lang in get_official_languages(territory, de_facto=True)
            }
            for code in get_territory_currencies(territory, date.today()):
                codes[code] |= spoken
    return codes


#: The languages read: the router's reply languages and the languages of the kit's users.
LANGUAGES = (
    "en de fr es pt it nl hi ja zh pl sv da no nb fi el tr ar ko ru cs mr ta te bn gu pa ur kn "
    "ml fil id ms vi th he uk ro hu bg hr sr sk sl et lv lt ca eu gl ga cy af sw zu fa pcm yo "
    "ig ha am ne si km my lo mn kk uz az ka hy sq mk bs is lb mt xh st so"
).split()


def locales() -> list[Locale]:
    found = []
    for identifier in LANGUAGES:
        if not localedata.exists(identifier):
            continue
        try:
            found.append(Locale.parse(identifier))
        except (ValueError, LookupError):
            continue
    return found


def _clean(name: str) -> str:
    return " ".join(name.replace("{0}", " ").lower().split()).strip(" .")


def currencies(all_locales: list[Locale]) -> dict[str, tuple[str, bool]]:
    codes = current_currencies()
    names: dict[str, set[str]] = defaultdict(set)
    name_languages: dict[str, set[str]] = defaultdict(set)
    symbols: dict[str, set[str]] = defaultdict(set)
    words: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for locale in all_locales:
        for code, read_in in codes.items():
            forms = {locale.currencies.get(code) or ""}
            forms |= set(dict(locale._data["currency_names_plural"].get(code, {})).values())
            for form in filter(None, forms):
                form = _clean(form)
                if locale.language in read_in:
                    names[form].add(code)
                    name_languages[form].add(locale.language)
                for word in _WORD.findall(form):
                    words[word][code].add(str(locale))
            symbol = (locale.currency_symbols.get(code) or "").strip().lower()
            if symbol and not symbol.isascii():
                symbols[symbol].add(code)
    table: dict[str, tuple[str, str]] = {}
    for name, found in names.items():
        if len(found) == 1 and len(name) > 2:
            table[name] = (next(iter(found)), "en" in name_languages[name])
    for symbol, found in symbols.items():
        if len(found) == 1 and symbol not in table:
            table[symbol] = (next(iter(found)), True)
    for word, by_code in words.items():
        if len(by_code) == 1 and len(word) > 3 and word not in table:
            code, where = next(iter(by_code.items()))
            if len(where) >= 2:
                table[word] = (code, any(w.split("_")[0] == "en" for w in where))
    return table


def units(all_locales: list[Locale]) -> dict[str, tuple[str, bool]]:
    systems: dict[str, set[str]] = defaultdict(set)
    languages: dict[str, set[str]] = defaultdict(set)
    for locale in all_locales:
        for system, unit_ids in (("metric", METRIC), ("imperial", IMPERIAL)):
            for unit in unit_ids:
                shown = dict(locale._data["unit_display_names"].get(unit, {}))
                forms = set(shown.values())
                for length in ("long", "short"):
                    patterns = dict(locale._data["unit_patterns"].get(unit, {}).get(length, {}))
                    forms |= set(patterns.values())
                for form in forms:
                    name = _clean(form)
                    if name and (len(name) > 2 or name in SHORT_UNITS):
                        systems[name].add(system)
                        languages[name].add(locale.language)
    return {
        name: (next(iter(s)), "en" in languages[name]) for name, s in systems.items() if len(s) == 1
    }


def main() -> None:
    all_locales = locales()
    currency = currencies(all_locales)
    unit = units(all_locales)
    lines = [
        '"""Currency and unit names as users write them (generated by',
        "benchmarks/value_names_build.py from CLDR via ``babel``; do not edit): lower-case name",
        "-> (ISO currency code, whether English writes it so: a symbol does), and lower-case",
        'unit name -> (``metric`` or ``imperial``, whether English writes it so)."""',
        "",
        "CURRENCY_NAMES: dict[str, tuple[str, bool]] = {",
        *(f"    {name!r}: {value!r}," for name, value in sorted(currency.items())),
        "}",
        "",
        "UNIT_SYSTEMS: dict[str, tuple[str, bool]] = {",
        *(f"    {name!r}: {value!r}," for name, value in sorted(unit.items())),
        "}",
        "",
    ]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(currency)} currency names, {len(unit)} unit names -> {OUT}")


if __name__ == "__main__":
    main()
