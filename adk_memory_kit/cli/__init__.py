"""The ``adk-memory-kit`` command line: :func:`main` (in :mod:`.main`) and one module per
command group (``db``, ``memory``, ``lifecycle``, ``reindex``, ``review``, ``episodic``,
``console``, ``mcp``, ``demo``)."""

from adk_memory_kit.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
