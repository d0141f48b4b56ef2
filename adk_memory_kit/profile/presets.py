"""The kit's default (travel) profile: preference names, known values and subject words.

These presets feed the vocabulary (``DEFAULT_VOCABULARY`` is built from
:data:`DEFAULT_PREFERENCES`) and the recall conflict rule (:data:`DEFAULT_KNOWN_VALUES`,
:data:`DEFAULT_SUBJECT_TERMS`). Pass your own to change them.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Values of the default preferences that identify what a memory is about. Only words that
#: are unambiguous in travel talk: "window" alone or "German" could be about anything.
DEFAULT_KNOWN_VALUES: Mapping[str, tuple[str, ...]] = {
    "diet": (
        "vegetarian", "vegan", "pescatarian", "pescetarian", "halal", "kosher", "gluten free",
        "lactose free", "dairy free", "omnivore", "flexitarian", "plant based", "keto",
    ),
    "seat": ("aisle", "window seat", "middle seat"),
    "cabin_class": ("economy", "premium economy", "business class", "first class"),
}  # fmt: skip

#: Words besides the name that say a memory is about a preference.
DEFAULT_SUBJECT_TERMS: Mapping[str, tuple[str, ...]] = {
    "diet": ("diet", "dietary"),
    "seat": ("seat",),
    "home_airport": ("home airport",),
    "language": ("language",),
    "currency": ("currency",),
    "cabin_class": ("cabin class",),
    "preferred_name": ("preferred name", "call me"),
    "allergies": ("allergy", "allergic", "allergies"),
    "units": ("units", "metric", "imperial"),
    "time_format": ("time format", "clock"),
    "date_format": ("date format",),
    "contact_channel": ("reminders", "notifications", "contact"),
    "reply_style": ("reply style", "replies"),
}


#: The default preference names, each with the description the model is shown.
DEFAULT_PREFERENCES: Mapping[str, str] = {
    "seat": "preferred aircraft/train seat, e.g. aisle or window",
    "diet": "dietary preference, e.g. vegetarian, vegan, pescatarian, halal, none",
    "home_airport": "the airport the user usually departs from (IATA code)",
    "language": "language the user wants replies in",
    "currency": "currency for prices (ISO code)",
    "cabin_class": "preferred cabin class, e.g. economy, business",
    "preferred_name": "how the user wants to be addressed",
    "allergies": "food the user is allergic to and must never be served, e.g. peanuts",
    "units": "units for measures, temperatures and distances: metric or imperial",
    "time_format": "how times are written: 24-hour or 12-hour",
    "date_format": "how dates are written, e.g. DD/MM/YYYY, MM/DD/YYYY, YYYY-MM-DD",
    "contact_channel": "how the user wants reminders and messages, e.g. WhatsApp, SMS, email",
    "reply_style": (
        "how replies are written, one or more of: short, detailed, bullet points, prose, "
        "informal, formal, plain words, no emoji"
    ),
}
