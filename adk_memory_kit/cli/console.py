"""``adk-memory-kit console``: serve the memory console with uvicorn."""

from __future__ import annotations

import argparse
import ipaddress
import os
from typing import Any

from adk_memory_kit.errors import InvalidInputError

TOKEN_ENV = "ADK_MEMORY_KIT_CONSOLE_TOKEN"
WILDCARDS = ("0.0.0.0", "::", "")


def register(subparsers: argparse._SubParsersAction) -> None:
    console = subparsers.add_parser(
        "console",
        help="serve the memory console (see, search, correct, review and forget) on the web",
        description="A small web app over the kit's stores. It binds to 127.0.0.1 by default; "
        "any other host needs --token, and every request must then carry it.",
    )
    console.add_argument("--host", default="127.0.0.1", help="default: 127.0.0.1")
    console.add_argument("--port", type=int, default=8766, help="default: 8766")
    console.add_argument(
        "--token",
        default=None,
        help=f"access token every request must carry (default: {TOKEN_ENV}); required for a "
        "non-loopback --host",
    )
    console.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name requests may carry in Host besides the bound host and loopback "
        "names, e.g. a reverse proxy's public name (repeatable); any other Host is refused",
    )
    console.add_argument(
        "--read-only", action="store_true", help="hide and refuse every change (support staff)"
    )
    console.add_argument(
        "--app",
        action="append",
        default=[],
        help="an app to list on the home page (repeatable)",
    )
    console.set_defaults(func=serve)


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def build_app(args: argparse.Namespace) -> Any:
    """The console app ``serve`` runs for these arguments (checks them first)."""
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if not is_loopback(args.host) and not token:
        raise InvalidInputError(
            f"--host {args.host[:64]} is reachable from other machines: pass --token (or set "
            f"{TOKEN_ENV}) so every request must carry it, or keep the default 127.0.0.1"
        )
    if not 0 < args.port < 65536:
        raise InvalidInputError(f"--port must be between 1 and 65535, got {args.port}")
    from adk_memory_kit.console import create_app

    allowed = [*getattr(args, "allowed_host", [])]
    if args.host not in WILDCARDS:  # the wildcard address is no name a client sends
        allowed.append(args.host)
    return create_app(
        getattr(args, "db_url", None),
        token=token,
        read_only=args.read_only,
        apps=args.app,
        allowed_hosts=allowed,
    )


def serve(args: argparse.Namespace) -> int:
    app = build_app(args)
    import uvicorn

    where = f"http://{args.host}:{args.port}/"
    mode = " (read-only)" if args.read_only else ""
    print(
        f"memory console{mode} on {where}" + ("  (token required)" if app.state.guard.token else "")
    )
    if args.host in WILDCARDS and not args.allowed_host:
        print("only loopback names are answered: pass --allowed-host NAME for the name clients use")
    # No access log: URLs hold user ids and search text, which never go to a log line.
    uvicorn.run(app, host=args.host, port=args.port, access_log=False, log_level="warning")
    return 0
