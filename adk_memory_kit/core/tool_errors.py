"""Tools answer errors as tool results (ADK's convention); a bad model call never ends a turn.

:func:`tool_errors` wraps a tool function: a kit error (a database error is translated
first) becomes ``{"status": "error", "error": <the kit's message>}``; an argument of the
wrong type that reaches Python (``TypeError`` / ``ValueError``, e.g. ``recall(query=None)``)
becomes ``{"status": "error", "error": "<tool>: an argument has the wrong type or value"}``.
No message quotes the model's arguments (kit messages never quote user text). Anything else
is raised: it is a bug, not bad input.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from adk_memory_kit.core.db_errors import DOOR_ATTR, translate

logger = logging.getLogger(__name__)


def error_result(message: str) -> dict[str, Any]:
    """The tool result for an error the model can read (and correct its call)."""
    return {"status": "error", "error": message}


def tool_errors(func: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Decorator for an async tool function (see the module doc); keeps its signature."""
    name = func.__name__

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await func(*args, **kwargs)
        except (TypeError, ValueError, ArithmeticError) as exc:
            err = translate(exc, name)  # a kit InvalidInputError is kept as it is
            if err is not None:
                logger.info("tool %s refused its arguments (%s)", name, type(err).__name__)
                return error_result(str(err))
            logger.info("tool %s got unusable arguments (%s)", name, type(exc).__name__)
            return error_result(
                f"{name}: an argument has the wrong type or value; check the tool's parameters"
            )
        except Exception as exc:
            err = translate(exc, name)
            if err is None:
                raise
            logger.info("tool %s failed (%s)", name, type(err).__name__)
            return error_result(str(err))

    setattr(wrapper, DOOR_ATTR, "tool")
    return wrapper


__all__ = ["error_result", "tool_errors"]
