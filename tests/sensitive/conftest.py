"""The health head's embedder for these tests: what ``adk_memory_kit/__init__.py`` registers
once the integration of issue 43 lands (``sensitive`` may not import ``embedders``)."""

from adk_memory_kit.embedders import LocalMiniLMEmbedder
from adk_memory_kit.sensitive.health_model import use_health_embedder

use_health_embedder(LocalMiniLMEmbedder)
