"""Special categories of personal data a user states about themselves: sexual orientation,
religion or belief, political opinion, criminal record, immigration status, and the answers to
security questions.

Like health, these are topics rather than tokens: the router drops a sentence that states one
(it is never stored where the agent reads it back), while the store's gate does not rewrite
the words themselves ("the Catholic church in the square" is a place). A finding needs the
user to say it of themselves (first person, in English, Spanish, Portuguese, German, French
or Italian), or a security question or answer to be named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding, prefix_tree
from adk_memory_kit.sensitive.scan import matches_at

#: Sexual orientation, gender identity, religion or belief (GDPR article 9 categories).
SPECIAL_CATEGORY = "special_category"

_TERMS = (
    r"gay|lesbian|bisexual|bi|queer|pansexual|asexual|trans|transgender|non-binary|nonbinary|"
    r"homosexual|lesbiana|l[eé]sbica|bissexual|schwul|lesbisch|homosexuell|homosexuel|"
    r"homosexuelle|lesbienne|omosessuale|"
    r"catholic|christian|muslim|moslem|jewish|hindu|buddhist|sikh|jain|mormon|evangelical|"
    r"atheist|agnostic|cat[oó]lic[oa]|cristian[oa]|crist[aã]o|crist[aã]|musulm[aá]n[a]?|"
    r"mu[cç]ulman[oa]|jud[ií]o|jud[ií]a|judeu|judia|evang[eé]lic[oa]|ateo|atea|ateu|"
    r"katholisch|katholik|katholikin|evangelisch|muslimisch|muslima|j[uü]disch|jude|j[uü]din|"
    r"atheistin|catholique|chr[eé]tien|chr[eé]tienne|musulman|musulmane|juif|juive|ath[eé]e|"
    r"cattolico|cattolica|musulmano|musulmana|ebreo|ebrea|ateo|atea"
)
_SELF = re.compile(
    r"(?<!\w)(?:i'?m|i am|we'?re|we are|as an?|being|soy|somos|sou|somos|ich bin|wir sind|"
    r"je suis|nous sommes|sono|siamo)\s+(?:a |an |un |una |um |uma |ein |eine |practi[sc]ing |"
    r"devout |observant |strict |proud |openly |out and )*(?:" + _TERMS + r")(?![\w-])",
    re.IGNORECASE,
)
_BELIEF = re.compile(
    r"(?<!\w)(?:my (?:religion|faith|church|mosque|synagogue|temple|sexuality|sexual orientation"
    r"|coming out)|i (?:came|come) out|mi (?:religi[oó]n|fe)|minha (?:religi[aã]o|f[eé])|"
    r"meine? (?:religion|glaube)|ma (?:religion|foi))(?!\w)"
    r"(?! (?:on top|of|in|at|with|ahead|fine|ok))",
    re.IGNORECASE,
)
_RECORD_OR_STATUS = re.compile(
    r"(?<!\w)(?:(?:i|we)\s+(?:had|have|got|'ve got)\s+(?:a\s+)?(?:dui|dwi|conviction|"
    r"criminal record|felony|record for)|(?:i|we)\s+(?:was|were|have been|got)\s+"
    r"(?:convicted|arrested|jailed|locked up)|(?:i|we)\s+did time|on parole|on probation|"
    r"(?:i'?m|i am|im|we'?re|we are)\s+(?:daca|undocumented|an? (?:asylum seeker|refugee))|"
    r"my (?:visa|immigration|asylum|residency) status|permesso di soggiorno|"
    r"(?:i|we)(?:'ve|\s+have)?\s+(?:always\s+)?(?:voted?|vote)\s+(?:for\s+)?(?:the\s+)?"
    r"(?:labour|tory|tories|"
    r"conservatives?|lib ?dems?|liberals?|ndp|democrats?|republicans?|greens?|snp|plaid|afd|"
    r"cdu|spd|psoe|vox|podemos|psol|bjp|congress|aap)|(?:member|supporter) of the [\w ]{2,40}? "
    r"party)(?!\w)",
    re.IGNORECASE,
)
_SECURITY_ANSWER = re.compile(
    r"(?<!\w)(?:(?:security|secret) (?:question|answer)|memorable (?:word|answer|date|place)|"
    r"maiden name|pregunta de seguridad|pergunta de seguran[cç]a|sicherheitsfrage|"
    r"question de s[eé]curit[eé]|domanda di sicurezza)(?!\w)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SpecialCategoryDetector:
    """Finds a user's statement of orientation, religion or belief (``special_category``)
    and a named security question or answer (``credential``)."""

    name: str = "special_category"
    kind: str = SPECIAL_CATEGORY

    def find(self, text: str) -> list[Finding]:
        heads = _heads(text)
        found = [
            Finding(SPECIAL_CATEGORY, self.name, m.start(), m.end())
            for pattern in (_SELF, _BELIEF, _RECORD_OR_STATUS)
            for m in (pattern.finditer(text) if heads is None else matches_at(pattern, heads, text))
        ]
        found += [
            Finding(CREDENTIAL, self.name, m.start(), m.end())
            for m in (
                _SECURITY_ANSWER.finditer(text)
                if heads is None
                else matches_at(_SECURITY_ANSWER, heads, text)
            )
        ]
        return found


#: Every match of the four patterns starts, at a word start, with one of these (lower case):
#: the patterns are tried there only (one C-speed pass), not at every position.
_HEADS = re.compile(
    r"(?<!\w)(?="
    + prefix_tree(
        "i we as being soy somos sou ich wir je nous sono siamo my mi minha mein ma on "
        "permesso member supporter security secret memorable maiden pregunta pergunta "
        "sicherheitsfrage question domanda".split()
    )
    + ")"
)


def _heads(text: str) -> list[int] | None:
    """Where a match may start, or ``None`` where lower case would mislead (the patterns
    are then run over the whole text)."""
    lower = text.lower()
    if len(lower) != len(text) or "\u0131" in text or "\u017f" in text or "\u212a" in text:
        return None
    return [m.start() for m in _HEADS.finditer(lower)]
