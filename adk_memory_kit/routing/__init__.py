"""Routing: decide where each candidate memory lives, and write it there safely."""

from adk_memory_kit.profile.guards import looks_like_instruction
from adk_memory_kit.profile.tools import (
    InstructionValueError,
    SensitiveValueError,
    make_profile_tools,
    read_profile,
    write_preference,
)
from adk_memory_kit.profile.vocabulary import (
    DEFAULT_VOCABULARY,
    PreferenceVocabulary,
    UnknownPreferenceError,
)
from adk_memory_kit.routing.apply import (
    REVIEW_STATE_KEY,
    MemoryApplier,
    RoutingOutcome,
    long_term_entry,
)
from adk_memory_kit.routing.approved_instructions import ApprovedInstructionsPlugin
from adk_memory_kit.routing.choice import ROUTING_MODEL_ENV, routing_extractor
from adk_memory_kit.routing.dates import resolve_relative_dates
from adk_memory_kit.routing.extractors import (
    DEFAULT_RULES,
    ExtractedFact,
    ExtractionError,
    ExtractionOutput,
    ExtractionRule,
    Extractor,
    LlmExtractor,
    RuleBasedExtractor,
    looks_like_behaviour_change,
    turn_events,
)
from adk_memory_kit.routing.gated import GatedLlmExtractor
from adk_memory_kit.routing.learned import Decision, LearnedRouter
from adk_memory_kit.routing.offline import LearnedExtractor, shared_learned_extractor
from adk_memory_kit.routing.plugin import (
    MemoryRoutingPlugin,
    TurnRouter,
    memory_routing_callback,
    route_turn,
)
from adk_memory_kit.routing.review_queue import ReviewItem, ReviewQueue
from adk_memory_kit.routing.rule import Candidate, MemoryHome, route
from adk_memory_kit.sensitive import (
    DEFAULT_DETECTORS,
    Detector,
    Finding,
    RegexDetector,
    TermDetector,
    detect_sensitive,
    is_sensitive,
    redact,
)

__all__ = [
    "REVIEW_STATE_KEY",
    "ROUTING_MODEL_ENV",
    "Decision",
    "GatedLlmExtractor",
    "LearnedExtractor",
    "LearnedRouter",
    "routing_extractor",
    "shared_learned_extractor",
    "DEFAULT_DETECTORS",
    "DEFAULT_RULES",
    "DEFAULT_VOCABULARY",
    "Candidate",
    "Detector",
    "ExtractedFact",
    "ExtractionError",
    "ExtractionOutput",
    "ExtractionRule",
    "Extractor",
    "Finding",
    "InstructionValueError",
    "LlmExtractor",
    "MemoryApplier",
    "MemoryHome",
    "MemoryRoutingPlugin",
    "PreferenceVocabulary",
    "RegexDetector",
    "ReviewItem",
    "ReviewQueue",
    "ApprovedInstructionsPlugin",
    "RoutingOutcome",
    "RuleBasedExtractor",
    "SensitiveValueError",
    "TermDetector",
    "TurnRouter",
    "UnknownPreferenceError",
    "detect_sensitive",
    "is_sensitive",
    "long_term_entry",
    "looks_like_behaviour_change",
    "looks_like_instruction",
    "make_profile_tools",
    "memory_routing_callback",
    "read_profile",
    "redact",
    "resolve_relative_dates",
    "route",
    "route_turn",
    "turn_events",
    "write_preference",
]
