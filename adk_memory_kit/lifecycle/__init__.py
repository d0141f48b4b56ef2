"""Session lifecycle: write sessions into long-term memory, and delete a user everywhere.

ADK's ``Runner`` never calls ``add_session_to_memory``. This package does: the
:class:`SessionCloser` (explicit end), the :class:`IdleIngestJob` (abandoned sessions), the
:class:`MemoryCheckpointPlugin` plus the ``end_session`` tool (every N turns / goodbye), and
:func:`forget_user` / :func:`data_map` for the right to be forgotten; the
:class:`IndexUpkeepJob` keeps heavy users' indexes built off the request path.
"""

from adk_memory_kit.core.data_home import DataHome, FunctionDataHome
from adk_memory_kit.lifecycle.checkpoint import (
    CHECKPOINT_STATE_KEY,
    END_SESSION_STATE_KEY,
    MemoryCheckpointPlugin,
    end_session,
    end_session_tool,
)
from adk_memory_kit.lifecycle.closer import CloseResult, SessionCloser, is_transient
from adk_memory_kit.lifecycle.config import MemoryCheckpointConfig, SessionCloserConfig
from adk_memory_kit.lifecycle.forget import (
    DataLocation,
    DataMap,
    ForgetReport,
    PendingForget,
    data_map,
    forget_user,
    lift_forget_fence,
    pending_forgets,
)
from adk_memory_kit.lifecycle.idle_job import IdleIngestJob, IdleRunReport
from adk_memory_kit.lifecycle.index_upkeep import IndexUpkeepJob
from adk_memory_kit.lifecycle.sleep_time import SleepTimeDistiller
from adk_memory_kit.lifecycle.watermarks import SessionKey, WatermarkState, WatermarkStore

__all__ = [
    "CHECKPOINT_STATE_KEY",
    "END_SESSION_STATE_KEY",
    "CloseResult",
    "DataHome",
    "DataLocation",
    "DataMap",
    "ForgetReport",
    "FunctionDataHome",
    "IdleIngestJob",
    "IdleRunReport",
    "IndexUpkeepJob",
    "MemoryCheckpointConfig",
    "MemoryCheckpointPlugin",
    "PendingForget",
    "SessionCloser",
    "SessionCloserConfig",
    "SessionKey",
    "SleepTimeDistiller",
    "WatermarkState",
    "WatermarkStore",
    "data_map",
    "end_session",
    "end_session_tool",
    "forget_user",
    "is_transient",
    "lift_forget_fence",
    "pending_forgets",
]
