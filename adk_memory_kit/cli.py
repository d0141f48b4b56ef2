"""The ``adk-memory-kit`` command line. Each feature registers its own subcommands.

A feature module exposes ``register(subparsers)`` which adds parsers whose ``func`` default
is a callable taking the parsed ``argparse.Namespace`` and returning an exit code (it may be
a coroutine function; it is then run with ``asyncio.run``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import sys
from collections.abc import Sequence

import psycopg
from sqlalchemy.exc import SQLAlchemyError

from adk_memory_kit.core.db_errors import translate
from adk_memory_kit.errors import MemoryKitError

COMMAND_MODULES = [
    "adk_memory_kit.db.cli",
    "adk_memory_kit.memory.cli",
    "adk_memory_kit.lifecycle.cli",
    "adk_memory_kit.routing.cli",
    "adk_memory_kit.demo.cli",
    "adk_memory_kit.console.cli",
    "adk_memory_kit.lifecycle.reindex_cli",
    "adk_memory_kit.episodic.cli",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="adk-memory-kit",
        description="Memory for Google ADK agents: long-term memory on Postgres + pgvector, "
        "session lifecycle jobs, review queue and the offline demo.",
    )
    parser.add_argument(
        "--db-url",
        default=None,
        help="postgresql+psycopg://... (default: ADK_MEMORY_KIT_DB_URL, else the embedded server)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        result = asyncio.run(func(args)) if inspect.iscoroutinefunction(func) else func(args)
    except MemoryKitError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)  # one line
        return 2
    except (SQLAlchemyError, psycopg.Error, OSError) as exc:  # one not translated on the way
        error = translate(exc, f"adk-memory-kit {args.command}")
        if error is None:
            raise
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
