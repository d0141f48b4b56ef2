"""Sensitive-data detection that needs no model: run it before anything is stored.

``detect_sensitive(text)`` returns one :class:`Finding` per hit (empty when the text is clean):
its kind (``payment_card``, ``iban``, ``credential``, ``government_id``, ``health``), the
detector and the position, never the matched text, so findings are safe to log.

Which library covers what (see ``docs/privacy.md``):

- ``detect-secrets`` plugins, run in process: vendor tokens and keys
  (:mod:`~adk_memory_kit.sensitive.vendor`), plus plugins of its own base class for the
  formats it lacks; its Shannon entropy for keyed tokens in prose.
- ``python-stdnum``: Luhn for cards, IBANs, SSN, SIN, Aadhaar, PAN, NHS, NIR, BSN, CPF,
  Steuer-ID, PESEL, DNI/NIE, codice fiscale (:mod:`~adk_memory_kit.sensitive.numbers`).
- The kit's own rules where no library reads prose: passwords and PINs after their keyword
  in four languages (:mod:`~adk_memory_kit.sensitive.passwords`), whole PEM blocks, health
  terms about a person (:mod:`~adk_memory_kit.sensitive.health`).

:func:`redact_for_store` is the one gate every text the kit stores passes through.
"""

from adk_memory_kit.sensitive.adk_plugin import UserMessageRedactionPlugin
from adk_memory_kit.sensitive.detect import (
    BANK_ACCOUNT,
    CREDENTIAL,
    DEFAULT_DETECTORS,
    GOVERNMENT_ID,
    HEALTH,
    HEALTH_DETECTOR,
    IBAN,
    IBAN_DETECTOR,
    NUMBER_DETECTOR,
    PAYMENT_CARD,
    PRIVATE_CONTACT,
    RECOVERY,
    SECRET_DETECTORS,
    Detector,
    Finding,
    GateSettings,
    HealthDetector,
    MeaningHealthDetector,
    RegexDetector,
    Sensitivity,
    TermDetector,
    card_network,
    detect_sensitive,
    finding_kinds,
    get_sensitivity,
    iban_valid,
    is_sensitive,
    luhn_valid,
    redact,
    redact_secrets,
    sensitivity_scope,
    set_sensitivity,
)
from adk_memory_kit.sensitive.gate import redact_for_store, redact_value

__all__ = [
    "BANK_ACCOUNT",
    "CREDENTIAL",
    "DEFAULT_DETECTORS",
    "GOVERNMENT_ID",
    "HEALTH",
    "HEALTH_DETECTOR",
    "HealthDetector",
    "MeaningHealthDetector",
    "IBAN",
    "IBAN_DETECTOR",
    "NUMBER_DETECTOR",
    "PAYMENT_CARD",
    "PRIVATE_CONTACT",
    "RECOVERY",
    "SECRET_DETECTORS",
    "Sensitivity",
    "Detector",
    "Finding",
    "GateSettings",
    "RegexDetector",
    "TermDetector",
    "UserMessageRedactionPlugin",
    "card_network",
    "detect_sensitive",
    "finding_kinds",
    "get_sensitivity",
    "iban_valid",
    "is_sensitive",
    "luhn_valid",
    "redact",
    "redact_for_store",
    "redact_secrets",
    "redact_value",
    "sensitivity_scope",
    "set_sensitivity",
]
