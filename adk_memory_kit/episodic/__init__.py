"""Episodic memory: an append-only, per-user log of what the agent did, with costs and traces.

``EpisodicLogPlugin`` records; ``EpisodicLog`` stores and reads back (``trace``,
``cost_summary``, ``first_failure``, ``export_trajectories``); ``PriceTable`` prices model
calls; ``EpisodicLogConfig`` holds the log's options. See ``docs/episodic.md``.
"""

from adk_memory_kit.episodic.config import EpisodicLogConfig
from adk_memory_kit.episodic.entry import KINDS, LogEntry
from adk_memory_kit.episodic.plugin import EpisodicLogPlugin
from adk_memory_kit.episodic.pricing import GEMINI_PRICES, PRICES_SOURCE, ModelPrice, PriceTable
from adk_memory_kit.episodic.store import CostLine, CostSummary, EpisodicLog, PendingEntry

__all__ = [
    "GEMINI_PRICES",
    "KINDS",
    "PRICES_SOURCE",
    "CostLine",
    "CostSummary",
    "EpisodicLog",
    "EpisodicLogConfig",
    "EpisodicLogPlugin",
    "LogEntry",
    "ModelPrice",
    "PendingEntry",
    "PriceTable",
]
