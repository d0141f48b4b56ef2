"""Embedders: the protocol, the local ONNX MiniLM default and Gemini."""

from adk_memory_kit.embedders.base import Embedder, QueryEmbedder
from adk_memory_kit.embedders.gemini import GeminiEmbedder
from adk_memory_kit.embedders.local import LocalMiniLMEmbedder

__all__ = ["Embedder", "GeminiEmbedder", "LocalMiniLMEmbedder", "QueryEmbedder"]
