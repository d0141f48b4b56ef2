"""Whether a message names a company by its legal form: a kept vocabulary of the forms
companies are registered under, in many languages ("Ltd", "GmbH", "d.o.o.", "Sp. z o.o.",
"ehf.", "UAB", "ООО", "株式会社", "บริษัท", "בע"מ"); short forms that are words too ("AG", "SA",
"AS", "AB": a bank branch in Portuguese, "in" in Tagalog, "as" in English) only with dots.

A number given beside a company's legal form is, most of the time, the company's: its
registration, tax or VAT number, printed on every invoice. Companies are not people: the
gate's privacy duty is to natural persons, so the layers without a format or strong cue do
not flag such numbers (:mod:`.secret_meaning`). Sole proprietors are persons and are not in
the list. Guarantee: one pass over the text's words.
"""

from __future__ import annotations

import re

_FORMS = frozenset(
    """
    ltd ltd. limited llc l.l.c. inc. corp. plc llp gmbh e.v. s.a. s.a.s. sarl s.a.r.l. s.l.
    srl s.r.l. s.p.a. b.v. n.v. a/s aps oyj ehf ehf. hf. s.r.o. d.o.o. d.d. kft kft. zrt
    zrt. nyrt eood еоод ооо оао зао пао тов тоо uab oü ltda ltda. eireli pty pvt bhd tbk
    k.k. a.ş. şti. a.e. α.ε. ε.π.ε. ικε s.c.a. sp.j.
    """.split()
)
_PHRASES = ("sp. z o.o.", "sp. z o. o.", "s. de r.l.", "s.a. de c.v.", "pty ltd", "pvt ltd",
            "sdn bhd", "ltd. şti", "d.o.o")  # fmt: skip
_SCRIPTS = ("株式会社", "有限会社", "合同会社", "有限公司", "股份有限公司", "주식회사", "(주)",
            "บริษัท", "จำกัด", "ش.م.م", 'בע"מ', "בע״מ")  # fmt: skip
_WORD = re.compile(r"[^\s,;:()«»\"“”]+")


def names_a_company(text: str) -> bool:
    """Whether ``text`` names a company by its legal form (see the module docstring)."""
    lower = text.lower()
    if any(p in lower for p in _PHRASES) or any(s in text for s in _SCRIPTS):
        return True
    return any(w.rstrip(".,") in _FORMS or w in _FORMS for w in _WORD.findall(lower))
