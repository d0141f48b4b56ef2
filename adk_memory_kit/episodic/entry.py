"""What one row of the episodic log holds, as read back."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

MODEL_CALL = "model_call"
TOOL_CALL = "tool_call"
TOOL_ERROR = "tool_error"
STATE_DELTA = "state_delta"
TRANSFER = "transfer"
CONFIRMATION = "confirmation"
HUMAN_DECISION = "human_decision"
USER_MESSAGE = "user_message"
ERROR = "error"

KINDS: tuple[str, ...] = (
    USER_MESSAGE,
    MODEL_CALL,
    TOOL_CALL,
    TOOL_ERROR,
    STATE_DELTA,
    TRANSFER,
    CONFIRMATION,
    HUMAN_DECISION,
    ERROR,
)
"""Every row kind the plugin writes."""

FAILURE_KINDS: tuple[str, ...] = (TOOL_ERROR, ERROR)


class LogEntry(BaseModel):
    """One logged step. ``cost_usd`` is ``None`` when the model has no price (unknown).

    ``payload`` is redacted JSON data; a payload above the size cap is
    ``{"truncated": true, "size": <bytes>, "sha256": <hex>, "head": <first characters>}``.
    ``error_type`` is an exception class name and ``error_code`` a model error code; neither
    ever holds message text.
    """

    model_config = ConfigDict(frozen=True)

    app_name: str
    user_id: str
    session_id: str
    seq: int
    invocation_id: str
    agent: str
    time: datetime
    kind: str
    name: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    tokens_estimated: bool = False
    cost_usd: float | None = None
    latency_ms: float | None = None
    payload: Any = Field(default_factory=dict)
    error_type: str | None = None
    error_code: str | None = None

    @property
    def failed(self) -> bool:
        """True for a tool error, an unhandled error or a model call that returned an error."""
        return self.kind in FAILURE_KINDS or (self.kind == MODEL_CALL and bool(self.error_code))
