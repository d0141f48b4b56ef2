"""``adk-memory-kit mcp``: serve the kit's memory over MCP; ``mcp token``: manage its tokens."""

from __future__ import annotations

import argparse
import os
import sys

from adk_memory_kit.cli.console import is_loopback
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.mcp.auth import TokenFile

TOKEN_ENV = "ADK_MEMORY_KIT_MCP_TOKEN"


def register(subparsers: argparse._SubParsersAction) -> None:
    mcp = subparsers.add_parser(
        "mcp",
        help="serve long-term memory to MCP clients (ADK in any language, other frameworks)",
        description="An MCP server with search_memory, remember, forget, list_memories and "
        "correct. Each connection acts for the app and user of its token only: on HTTP the "
        "'Authorization: Bearer' header of every request, on stdio the token in "
        f"{TOKEN_ENV}. Issue tokens with 'adk-memory-kit mcp token issue'.",
    )
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="http: default 127.0.0.1")
    mcp.add_argument("--port", type=int, default=8767, help="http: default 8767")
    _tokens_option(mcp)
    mcp.set_defaults(func=_serve)

    token = mcp.add_subparsers(dest="mcp_command", title="token management").add_parser(
        "token", help="issue, list or revoke the tokens of the MCP server"
    )
    actions = token.add_subparsers(dest="token_command", metavar="ACTION", required=True)
    issue = actions.add_parser("issue", help="a new token for one app and user (shown once)")
    issue.add_argument("--app", required=True, help="app name")
    issue.add_argument("--user", required=True, help="user id")
    _tokens_option(issue)
    issue.set_defaults(func=_issue)
    listing = actions.add_parser("list", help="token ids with their app and user")
    _tokens_option(listing)
    listing.set_defaults(func=_list)
    revoke = actions.add_parser("revoke", help="remove a token by its id")
    revoke.add_argument("token_id", help="the id 'issue' and 'list' show")
    _tokens_option(revoke)
    revoke.set_defaults(func=_revoke)


def _tokens_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tokens",
        default=argparse.SUPPRESS,
        metavar="PATH",
        help="the token file (default: $ADK_MEMORY_KIT_HOME/mcp_tokens.json); it holds "
        "SHA-256 digests, never tokens",
    )


def _token_file(args: argparse.Namespace) -> TokenFile:

    return TokenFile(getattr(args, "tokens", None))


def _issue(args: argparse.Namespace) -> int:
    tokens = _token_file(args)
    token_id, token = tokens.issue(args.app, args.user)
    print(f"token {token_id} for app {args.app}, user {args.user} (stored in {tokens.path}):")
    print(token)
    print("it is shown only this once; the file keeps its SHA-256 only", file=sys.stderr)
    return 0


def _list(args: argparse.Namespace) -> int:
    entries = _token_file(args).entries()
    if not entries:
        print("no tokens")
    for e in entries:
        print(f"{e.get('id')}  app={e.get('app')}  user={e.get('user')}  {e.get('created_at')}")
    return 0


def _revoke(args: argparse.Namespace) -> int:
    if not _token_file(args).revoke(args.token_id):
        raise InvalidInputError(f"no token has the id {args.token_id[:32]}")
    print(f"revoked token {args.token_id}")
    return 0


async def _serve(args: argparse.Namespace) -> int:
    from adk_memory_kit.mcp import require_sdk

    server = require_sdk()  # the [mcp] extra, before any database work
    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.mcp.tools import MemoryTools

    tokens = _token_file(args)
    identity = None
    if args.transport == "stdio":
        identity = tokens.lookup(os.environ.get(TOKEN_ENV))
        if identity is None:
            raise InvalidInputError(
                f"{TOKEN_ENV} is missing or not a token of {tokens.path}: issue one with "
                "'adk-memory-kit mcp token issue --app APP --user USER'"
            )
    else:
        if not 0 < args.port < 65536:
            raise InvalidInputError(f"--port must be between 1 and 65535, got {args.port}")
        if not tokens.entries():
            print(f"no tokens in {tokens.path}: every request is refused", file=sys.stderr)
    async with PgVectorMemoryService(getattr(args, "db_url", None)) as memory:
        tools = MemoryTools(memory)
        try:
            if identity is not None:
                await server.serve_stdio(tools, identity)
            else:
                where = f"http://{args.host}:{args.port}{server.MCP_PATH}"
                note = "" if is_loopback(args.host) else " (use TLS in front: tokens are bearer)"
                print(f"MCP server on {where}{note}", file=sys.stderr)
                await server.serve_http(tools, tokens, host=args.host, port=args.port)
        finally:
            await tools.close()
    return 0
