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
import os
import select
import sys
from collections.abc import Sequence

import psycopg
from sqlalchemy.exc import SQLAlchemyError

from adk_memory_kit.core.db_errors import translate
from adk_memory_kit.errors import MemoryKitError

COMMAND_MODULES = [
    "adk_memory_kit.cli.db",
    "adk_memory_kit.cli.memory",
    "adk_memory_kit.cli.scopes",
    "adk_memory_kit.cli.lifecycle",
    "adk_memory_kit.cli.review",
    "adk_memory_kit.cli.demo",
    "adk_memory_kit.cli.console",
    "adk_memory_kit.cli.reindex",
    "adk_memory_kit.cli.episodic",
    "adk_memory_kit.cli.mcp",
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
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
    except MemoryKitError as exc:
        if isinstance(exc.__cause__, BrokenPipeError) and _stdout_gone():
            return _quiet_exit()
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)  # one line
        return 2
    except (SQLAlchemyError, psycopg.Error, OSError) as exc:  # one not translated on the way
        if isinstance(exc, BrokenPipeError) and _stdout_gone():
            return _quiet_exit()
        error = translate(exc, f"adk-memory-kit {args.command}")
        if error is None:
            raise
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


def _stdout_gone() -> bool:
    """Whether stdout is a pipe whose reader went away (``... | head -1``).

    A broken pipe to the database is a database fault and stays one: only a stdout that
    reports an error when polled counts (no poll, e.g. on Windows: assume it is stdout).
    """
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return True


def _quiet_exit() -> int:
    """The reader of stdout went away: not an error of the kit, so no message.

    As the Python documentation advises for SIGPIPE: point stdout at devnull so that the
    interpreter's final flush does not fail again, and exit with status 1.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1
