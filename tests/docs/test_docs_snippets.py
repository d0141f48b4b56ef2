"""Every shell command and Python block of the README and the docs runs, so drift fails CI.

A fenced block whose language is ``bash`` or ``python`` is run as written, from the repository
root, offline (no ``GOOGLE_API_KEY``: the scripted models), against the test run's embedded
PostgreSQL (``ADK_MEMORY_KIT_HOME``): bash with ``bash -e``, Python as a script. A block that
cannot run here says so in its fence, with the reason::

    ```bash no-run: needs a Google Cloud project
    gcloud ...
    ```

Such a block is skipped with that reason, after the checks that need nothing: Python must
compile (top-level ``await`` allowed; ``...`` stands for "your own code"), bash must parse
(``bash -n``), and every ``adk-memory-kit`` command line in any block must parse with the
real command-line parser (``--help`` is not enough: the arguments must fit).
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "agents" / "README.md",
    ROOT / "samples" / "README.md",
]
LANGUAGES = ("bash", "python")
MARK = "no-run:"
_FENCE = re.compile(
    r"^(?P<indent>[ ]{0,3})```(?P<info>[^\n`]*)\n(?P<body>.*?)^[ ]{0,3}```[ \t]*$", re.S | re.M
)


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    language: str
    body: str
    skip: str | None  # the reason given after ``no-run:``

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in _FENCE.finditer(text):
            info = match.group("info").strip()
            language = info.split(" ", 1)[0]
            if language not in LANGUAGES:
                continue
            reason = None
            if MARK in info:
                reason = info.split(MARK, 1)[1].strip()
                assert reason, f"{path.name}: a no-run mark must say why"
            line = text.count("\n", 0, match.start()) + 1
            body = textwrap.dedent(match.group("body"))
            found.append(Block(path, line, language, body, reason))
    return found


ALL = blocks()


def _env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "GOOGLE_API_KEY",
            "GOOGLE_GENAI_USE_VERTEXAI",
            "ADK_MEMORY_KIT_MODEL",
            "ADK_MEMORY_KIT_DB_URL",
        }
    }
    env["ADK_MEMORY_KIT_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def _commands(body: str) -> list[list[str]]:
    """The ``adk-memory-kit`` command lines of a bash block (continuations joined)."""
    joined = re.sub(r"\\\n", " ", body)
    out = []
    for line in joined.splitlines():
        line = line.split(" # ", 1)[0].strip()
        for part in re.split(r"&&|\|\||;|\|", line):
            words = shlex.split(part, comments=True) if part.strip() else []
            if words and words[0] == "adk-memory-kit":
                out.append(words[1:])
    return out


def test_blocks_are_found():
    assert len(ALL) >= 30 and {b.language for b in ALL} == set(LANGUAGES)
    assert any(b.skip is None for b in ALL) and any(b.skip for b in ALL)


@pytest.mark.parametrize("block", ALL, ids=lambda b: b.name)
def test_block_parses(block):
    if block.language == "python":
        tree = compile(
            block.body, block.name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT | ast.PyCF_ONLY_AST
        )
        _check_imports(block, tree)
    else:
        done = subprocess.run(["bash", "-n"], input=block.body, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def _check_imports(block: Block, tree: ast.Module) -> None:
    """Each top-level import of the kit or of ADK resolves (a fragment's names included);
    other packages (your agent folder, an optional SDK) may be absent here."""
    for node in tree.body:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
        ours = any(m and m.split(".")[0] in ("adk_memory_kit", "google") for m in modules)
        try:
            exec(compile(ast.Module([node], []), block.name, "exec"), {})
        except ImportError as exc:
            if ours:
                pytest.fail(f"{block.name}: {ast.unparse(node)} fails: {exc}")


COMMANDS = [(b, argv) for b in ALL if b.language == "bash" for argv in _commands(b.body)]


@pytest.mark.parametrize(
    "block,argv", COMMANDS, ids=[f"{b.name}:{' '.join(a)[:40]}" for b, a in COMMANDS]
)
def test_every_cli_command_line_parses(block, argv):
    from adk_memory_kit.cli import build_parser

    placeholders = {"A": "app", "U": "user", "S": "session", "N": "7", "H": "127.0.0.1"}
    argv = [placeholders.get(a, a) for a in argv]
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{block.name}: `adk-memory-kit {' '.join(argv)}` does not parse ({exc})")


@pytest.mark.slow
@pytest.mark.parametrize("block", ALL, ids=lambda b: b.name)
def test_block_runs(block, kit_home_dir, db_url, tmp_path):
    if block.skip:
        pytest.skip(block.skip)
    env = _env(kit_home_dir)
    if block.language == "bash":
        command = ["bash", "-e", "-o", "pipefail", "-c", block.body]
    else:
        script = tmp_path / "block.py"
        script.write_text(block.body, encoding="utf-8")
        command = [sys.executable, str(script)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (
        f"{block.name} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
