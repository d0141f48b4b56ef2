"""Neutral shared contracts: value objects, protocols and validation every package may use.

``core`` imports nothing from the rest of the kit except ``errors``; every other package may
import it.
"""

from adk_memory_kit.core.data_home import DataHome, FunctionDataHome
from adk_memory_kit.core.scope import Scope
from adk_memory_kit.core.times import parse_time
from adk_memory_kit.core.validation import check_identifier, check_scope, clean_text, normalize_key

__all__ = [
    "DataHome",
    "FunctionDataHome",
    "Scope",
    "check_identifier",
    "check_scope",
    "clean_text",
    "normalize_key",
    "parse_time",
]
