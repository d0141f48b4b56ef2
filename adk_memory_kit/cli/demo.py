"""``adk-memory-kit demo``: the offline demo (:mod:`adk_memory_kit.demo.run`)."""

from __future__ import annotations

import argparse

from adk_memory_kit.demo.run import run_demo


def register(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="run the Monday/Thursday story and a research session offline (embedded Postgres)",
    )
    demo.add_argument(
        "--home",
        default=None,
        help="data folder for the embedded server (default: ADK_MEMORY_KIT_HOME "
        "or ~/.adk_memory_kit)",
    )
    demo.add_argument("--user", default="user-17", help="the demo user's id")
    demo.set_defaults(func=run_demo)
