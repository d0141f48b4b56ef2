"""The words of a wish that the assistant stop keeping something: "stop remembering my gym",
"don't store my card number", "I'd rather you didn't know about my debts".

One grammar for two readers: the offline router (a sentence opening with these words is a
request to forget, whatever the example bank says of it, so it is never stored nor sent to a
human reviewer) and the forget handler (what follows the words names the subject). Each
form speaks of the assistant's memory itself ("remember", "know", "store", "keep track
of"), so an ordinary instruction ("don't keep me waiting") does not read as one, and a
statement ("I don't remember my password") is not one either.
"""

from __future__ import annotations

import re

_NOT = r"(?:don't|do not|dont|never)"
# never an object that makes it an ordinary instruction ("don't keep me waiting", "don't
# save us a table", "stop keeping on about it")
_NOT_AN_OBJECT = r"(?!\s+(?:me|us|you|him|her|them|going|on|up|in|out|away|quiet|calm|still)\b)"
#: what the assistant is asked to stop doing ("keep track of", "hold on to", "know about")
KEEPING = (
    r"(?:(?:remember(?:ing)?|keep(?:ing)? (?:track of|a record of|hold of|a note of|notes on)|"
    r"keep(?:ing)?|stor(?:e|ing)|sav(?:e|ing)|hold(?:ing)? on to|know(?:ing)?(?: about)?)"
    + _NOT_AN_OBJECT
    + ")"
)
#: the verb phrases of such a wish, as one regex alternation (no leading politeness)
NOT_TO_KEEP = (
    rf"{_NOT} (?:{KEEPING})|"
    rf"stop (?:{KEEPING})|"
    rf"(?:i|we) (?:{_NOT}|no longer) want you (?:to )?(?:{KEEPING}|have|having)|"
    rf"(?:i|we)(?:'d| would) (?:rather|prefer(?: it if)?) (?:you )?(?:didn't|did not|not|"
    rf"don't) (?:{KEEPING})|"
    rf"(?:you )?(?:don't|do not|no) need (?:to )?(?:{KEEPING})"
)
#: what may come before the wish ("Actually, could you please ...")
POLITE = (
    r"(?:(?:please|kindly|can you|could you|would you|will you|i want you to|i'd like you to|"
    r"i would like you to|i need you to|just|you can|you should|go ahead and|feel free to)\s+)*"
)
_OPENER = (
    r"(?:(?:actually|oh|ok|okay|right|so|and|also|hey|um|well|never mind|on second "
    r"thought)\b[,.!]?\s*)*"
)
_ASKS_NOT_TO_KEEP = re.compile(rf"^\s*{_OPENER}{POLITE}(?:{NOT_TO_KEEP})\b", re.IGNORECASE)


def asks_not_to_keep(sentence: str) -> bool:
    """Whether ``sentence`` opens (after an interjection and politeness) with a wish that
    the assistant stop keeping something ("Could you stop remembering my gym?")."""
    return _ASKS_NOT_TO_KEEP.match(sentence) is not None
