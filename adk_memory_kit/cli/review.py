"""``adk-memory-kit review list|approve|reject|revoke``: a human decides on behaviour-changing
requests.

An approved item reaches the agent (through ``ApprovedInstructionsPlugin``, in a marked block
with its approval date and approver): for its user, or with ``approve --for-app`` for every
user of its app. ``revoke`` takes an approved item back; rejected and pending items never
reach the agent.

A refused request (an unknown item, one already decided, a bad filter) raises the kit's
error; ``adk-memory-kit`` prints it as one ``error: ...`` line on stderr and exits with 2.
"""

from __future__ import annotations

import argparse
import getpass

from adk_memory_kit.routing.review_queue import STATUSES, ReviewItem, ReviewQueue


def register(subparsers: argparse._SubParsersAction) -> None:
    review = subparsers.add_parser(
        "review", help="list, approve or reject behaviour-changing requests (human review)"
    )
    actions = review.add_subparsers(dest="review_command", metavar="ACTION", required=True)

    show = actions.add_parser("list", help="list queued requests (pending by default)")
    show.add_argument("--app", default=None, help="only this app")
    show.add_argument("--user", default=None, help="only this user")
    show.add_argument(
        "--status", default="pending", choices=[*STATUSES, "all"], help="default: pending"
    )
    show.add_argument("--limit", type=int, default=50)
    show.set_defaults(func=review_list)

    for name, helptext in (
        ("approve", "approve: the agent follows it from its next model call"),
        ("reject", "reject: it never reaches the agent"),
        ("revoke", "take an approved item back: the agent no longer follows it"),
    ):
        act = actions.add_parser(name, help=helptext)
        act.add_argument("item_id", type=int, help="the id shown by 'review list'")
        act.add_argument("--by", default=None, help="reviewer name (default: the OS user)")
        act.add_argument("--note", default=None, help="why, or what was changed")
        act.add_argument("--app", default=None, help="refuse unless the item is in this app")
        if name == "approve":
            act.add_argument(
                "--for-app",
                action="store_true",
                help="instruct the agent of every user of the item's app (default: its user)",
            )
        act.set_defaults(func=review_decide, decision=name)


def _line(item: ReviewItem) -> str:
    decided = f" {item.decided_by} {item.decided_at:%Y-%m-%d %H:%M}" if item.decided_at else ""
    body = " ".join(item.text.split())
    return (
        f"{item.id:>6}  {item.status:<8}  {item.created_at:%Y-%m-%d %H:%M}  "
        f"{item.app_name}/{item.user_id}{decided}\n        {body[:300]}"
    )


async def review_list(args: argparse.Namespace) -> int:
    async with ReviewQueue(getattr(args, "db_url", None)) as queue:
        items = await queue.list(
            app_name=args.app,
            user_id=args.user,
            status=None if args.status == "all" else args.status,
            limit=args.limit,
        )
    if not items:
        print("no review items")
    for item in items:
        print(_line(item))
    return 0


async def review_decide(args: argparse.Namespace) -> int:
    by = args.by or getpass.getuser()
    async with ReviewQueue(getattr(args, "db_url", None)) as queue:
        if args.decision == "approve":
            whom = "app" if args.for_app else "user"
            item = await queue.approve(
                args.item_id, by=by, note=args.note, app_name=args.app, applies_to=whom
            )
        else:
            decide = queue.reject if args.decision == "reject" else queue.revoke
            item = await decide(args.item_id, by=by, note=args.note, app_name=args.app)
    print(_line(item))
    if item.status == "approved":
        whom = f"every user of {item.app_name}" if item.applies_to == "app" else item.user_id
        print(
            f"approved: the agent of {whom} follows it from its next model call "
            "(with ApprovedInstructionsPlugin installed, as MemoryKit does)"
        )
    elif item.status == "revoked":
        print("revoked: the agent no longer follows it, from its next model call")
    return 0
