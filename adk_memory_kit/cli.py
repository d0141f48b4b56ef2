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

from sqlalchemy.exc import OperationalError

from adk_memory_kit.errors import MemoryKitError

COMMAND_MODULES = [
    "adk_memory_kit.db.cli",
    "adk_memory_kit.memory.cli",
    "adk_memory_kit.lifecycle.cli",
    "adk_memory_kit.routing.cli",
    "adk_memory_kit.demo.cli",
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
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OperationalError as exc:  # a server that is down or refuses the connection
        reason = str(exc.orig or exc).strip().splitlines()[0]
        print(
            f"error: cannot reach the database ({reason}); check --db-url / "
            "ADK_MEMORY_KIT_DB_URL, or leave both unset to use the embedded server",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
