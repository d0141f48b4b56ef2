"""Write ``adk_memory_kit/routing/data/reply_style_examples.jsonl`` and the head the
``reply_style`` value finder (:mod:`adk_memory_kit.routing.reply_style`) reads it with.

Usage::

    python benchmarks/reply_style_build.py [--through 14]

Rows: the kit's English phrasings below; the wishes of
``benchmarks/data/reply_style_training.jsonl`` (written for training by two helpers who never
read the kit, in 40+ languages, each with its values); and the reply-style messages of the
routing corpora other writers wrote for first reads (r1 up to ``--through``, once read), with
the values
``benchmarks/data/routing_user_state_names.jsonl`` gives them (labelled by a helper, by
meaning); as rows with no value, the helpers' look-alike one-off requests and a quarter of the
router's other rows. The kit's phrasings are also rows of the router's bank
(``user_state:reply_style``).
"""

from __future__ import annotations

import json
from pathlib import Path

from bank_other_writers_build import write_rows

from adk_memory_kit.routing.bank import load_world_bank, split_of
from adk_memory_kit.routing.reply_style import VALUES, write_head

HERE = Path(__file__).parent
OUT = HERE.parent / "adk_memory_kit" / "routing" / "data" / "reply_style_examples.jsonl"
TRAINING = HERE / "data" / "reply_style_training.jsonl"

KIT_PHRASINGS: dict[str, tuple[str, ...]] = {
    "short": (
        "Keep your answers short please.", "Shorter replies, I read on my phone.",
        "No essays, two or three lines is plenty.", "tl;dr versions only from now on",
        "Be brief with me, I don't have time for long answers.",
        "Just give me the gist, skip the long explanations.", "Keep it concise when you reply.",
        "Cut the waffle, short answers.",
    ),
    "detailed": (
        "Give me the full detailed explanation, I like the long version.",
        "Don't hold back on detail when you answer me.",
        "I prefer thorough answers with all the reasoning spelled out.",
        "Longer replies are fine, explain everything step by step.",
        "Go into depth, I want the technical details.", "Please be comprehensive in your answers.",
    ),
    "bullet points": (
        "Bullet points please, not paragraphs.", "Answer me in lists, I skim.",
        "Use numbered steps instead of walls of text.",
        "Format replies as bullet points from now on.", "Bullets over paragraphs every time.",
        "Put things in a list so I can scan it.",
    ),
    "prose": (
        "Write in normal paragraphs, no bullet lists please.", "I prefer flowing prose to lists.",
        "Plain text please, no markdown or headings.",
        "Stop using bullet points with me, full sentences.",
        "No tables or lists, just write it out.",
    ),
    "informal": (
        "Talk to me casually, no need to be formal.",
        "Keep it chill and friendly when you chat with me.",
        "You can be relaxed with me, drop the corporate tone.", "Use the informal you with me.",
        "Just talk to me like a mate.", "No need for sir or madam, be casual.",
    ),
    "formal": (
        "Please address me formally in your replies.",
        "Keep a professional, formal tone with me.", "I prefer polite, formal language.",
        "Use the formal form of address when you write to me.",
        "No slang please, keep it formal.",
    ),
    "plain words": (
        "Use simple words, my English is not very good.", "No jargon please, explain it plainly.",
        "Keep the language simple, I'm not technical.", "Avoid big words when you answer me.",
        "Explain things like I'm a beginner, plain language.",
    ),
    "no emoji": (
        "No emojis in your replies please.", "Stop putting emoji in your messages to me.",
        "Don't use smileys or emoji with me.", "Please keep the emojis out of it.",
    ),
}  # fmt: skip


def rows(through: int) -> list[dict]:
    out = [
        {"text": text, "values": [value], "from": "kit"}
        for value, texts in KIT_PHRASINGS.items()
        for text in texts
    ]
    corpus = {}
    for n in range(1, through + 1):
        path = HERE / "data" / f"routing_first_read_r{n}.jsonl"
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                corpus.setdefault(json.loads(line)["text"], f"r{n}")
    for line in TRAINING.read_text("utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        values = [v for v in row.get("values", ()) if v in VALUES]
        if row.get("kind") == "wish" and values:
            out.append({"text": row["text"], "values": values, "from": row["writer"]})
        elif row.get("kind") == "not_a_wish":
            out.append({"text": row["text"], "values": [], "from": row["writer"]})
    names = HERE / "data" / "routing_user_state_names.jsonl"
    for line in names.read_text("utf-8").splitlines():
        named = json.loads(line) if line.strip() else {}
        values = [v for v in named.get("values", ()) if v in VALUES]
        if named.get("label") == "user_state:reply_style" and values and named["text"] in corpus:
            out.append({"text": named["text"], "values": values, "from": corpus[named["text"]]})
    return out + negatives({r["text"] for r in out})


def negatives(taken: set[str]) -> list[dict]:
    """Rows of the router's banks that are no wish about replies (a quarter of them, by the
    bank's split hash): with the helpers' look-alike requests, they teach the head to give no
    value to a sentence that asks for none."""
    out = []
    for example in load_world_bank():
        if example.label == "user_state:reply_style" or example.text in taken:
            continue
        if split_of(example.text) == "heldout":
            out.append({"text": example.text, "values": [], "from": example.source})
    return out


def main() -> None:
    write_rows(__doc__.splitlines()[0], rows, OUT)
    print(f"head: {write_head()}")


if __name__ == "__main__":
    main()
