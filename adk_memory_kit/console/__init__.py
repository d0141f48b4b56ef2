"""The memory console: see, search, correct, review and forget in a web page.

``adk-memory-kit console`` serves it; :func:`create_app` returns it as a FastAPI app to
mount in another server (e.g. beside ``adk web``).
"""

from adk_memory_kit.console.app import create_app

__all__ = ["create_app"]
