"""The memory console: see, search, correct, review and forget in a web page.

``adk-memory-kit console`` serves it; :func:`create_app` returns it as a FastAPI app to
mount in another server (e.g. beside ``adk web``). It needs the ``[console]`` extra
(FastAPI, uvicorn, Jinja2); importing this package does not, so the command line works
without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adk_memory_kit.console.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        try:
            from adk_memory_kit.console.app import create_app
        except ImportError as exc:
            from adk_memory_kit.errors import MemoryKitError

            raise MemoryKitError(
                f"the memory console needs the [console] extra ({exc.name} is missing): "
                "pip install 'adk-memory-kit[console]'"
            ) from exc
        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
