"""One error translation at every public door, proven from the code itself.

The public API is enumerated, not listed: every class and function in ``__all__`` of every
package, the tools of every toolset and tool factory, and the console's app. Each public
async door must carry the marker of one of the kit's translations
(``adk_memory_kit.core.db_errors.DOOR_ATTR``):

* ``translates`` (``db_doors`` / ``translates_db_errors``): raises kit errors only;
* ``contained`` (``contained_doors``, ADK plugins): a dead database logs one line and the
  turn goes on;
* ``tool`` (``tool_errors``): errors come back as tool results.

A class or function that never touches a database may be exempted below, and the test
checks the claim: its module must not import SQLAlchemy, psycopg or the kit's db package,
nor take an engine or a database URL.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import adk_memory_kit
from adk_memory_kit.core.db_errors import DOOR_ATTR

KINDS = {"translates", "contained", "tool"}

#: Public async code that reaches no database (model calls, embedding, pure functions).
NO_DATABASE = {
    "RuleConsolidator": "rules over the facts it is given",
    "LlmConsolidator": "a model call",
    "QueryDecomposer": "a model call (sub-questions of a search question)",
    "Consolidator": "protocol",
    "GeminiEmbedder": "a model call",
    "LocalMiniLMEmbedder": "local model",
    "Embedder": "protocol",
    "QueryEmbedder": "protocol",
    "RuleBasedExtractor": "rules over the turn",
    "LlmExtractor": "a model call",
    "GatedLlmExtractor": "the rule gate, then a model call",
    "LearnedExtractor": "the rule gate, then the learned router",
    "LearnedRouter": "embedding and a linear head over the shipped bank",
    "Extractor": "protocol",
    "FactPreservingSummarizer": "a model call",
    "ContextBudget": "token arithmetic",
    "ScriptedLlm": "the test double: scripted replies, no model, no database",
    "select_events": "the write policy's choice over events in memory",
    "RoutedOptions": "the routed write policy (select_events) as a session selector",
    "TranscriptSelector": "every text event, unchanged",
    "WorkingMemoryToolset": "session state only (its tools are checked as tools)",
    "MemoryToolset": "get_tools only (its tools are checked as tools)",
}
DB_WORDS = re.compile(
    r"\bimport sqlalchemy|\bfrom sqlalchemy|\bpsycopg\b|adk_memory_kit\.db\b|\bAsyncEngine\b"
    r"|\bdb_url\b"
)


def _packages() -> list[object]:
    names = ["adk_memory_kit"] + [
        m.name for m in pkgutil.walk_packages(adk_memory_kit.__path__, "adk_memory_kit.") if m.ispkg
    ]
    return [importlib.import_module(n) for n in names]


def public_objects() -> dict[str, object]:
    """Every class and function in ``__all__`` of every package (by qualified name)."""
    found: dict[str, object] = {}
    for package in _packages():
        for name in getattr(package, "__all__", ()):
            obj = getattr(package, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                if getattr(obj, "__module__", "").startswith("adk_memory_kit"):
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def public_async_methods(cls: type) -> dict[str, object]:
    methods: dict[str, object] = {}
    for klass in cls.__mro__:
        if not klass.__module__.startswith("adk_memory_kit"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or name in methods:
                continue
            if inspect.iscoroutinefunction(value) or inspect.isasyncgenfunction(value):
                methods[name] = getattr(cls, name)
    return methods


def _exempt(obj: object) -> bool:
    name = obj.__name__
    if name not in NO_DATABASE:
        return False
    source = inspect.getsource(inspect.getmodule(obj))
    assert not DB_WORDS.search(source), f"{name} is exempted but its module reaches a database"
    return True


def test_the_enumeration_sees_the_whole_api():
    objects = public_objects()
    assert len(objects) > 150
    for known in ("PgVectorMemoryService", "EpisodicLog", "ReviewQueue", "forget_user"):
        assert any(k.endswith("." + known) for k in objects), known


def test_every_public_async_door_translates_database_errors():
    unmarked: list[str] = []
    doors = 0
    for qualname, obj in public_objects().items():
        if inspect.isclass(obj):
            if _exempt(obj):
                continue
            for name, method in public_async_methods(obj).items():
                doors += 1
                if getattr(method, DOOR_ATTR, None) not in KINDS:
                    unmarked.append(f"{qualname}.{name}")
        elif inspect.iscoroutinefunction(obj) and not _exempt(obj):
            doors += 1
            if getattr(obj, DOOR_ATTR, None) not in KINDS:
                unmarked.append(qualname)
    assert doors > 60
    assert unmarked == [], f"public doors without an error translation: {unmarked}"


def test_every_plugin_callback_is_contained():
    from google.adk.plugins.base_plugin import BasePlugin

    plugins = [
        o for o in public_objects().values() if inspect.isclass(o) and issubclass(o, BasePlugin)
    ]
    assert len(plugins) >= 5
    for plugin in plugins:
        for name, method in public_async_methods(plugin).items():
            assert getattr(method, DOOR_ATTR, None) == "contained", f"{plugin.__name__}.{name}"


async def every_tool() -> list[object]:
    """The tools of every public toolset and tool factory."""
    from adk_memory_kit.lifecycle.checkpoint import end_session_tool
    from adk_memory_kit.profile import DEFAULT_VOCABULARY
    from adk_memory_kit.profile.tools import make_profile_tools
    from adk_memory_kit.recall.load import FramedLoadMemoryTool
    from adk_memory_kit.tools import MemoryToolset
    from adk_memory_kit.working_memory import WorkingMemoryToolset

    tools = [*await MemoryToolset().get_tools(), *await WorkingMemoryToolset().get_tools()]
    tools += make_profile_tools(DEFAULT_VOCABULARY)
    tools += [end_session_tool(), FramedLoadMemoryTool()]
    return tools


async def test_every_tool_answers_errors_as_tool_results():
    tools = await every_tool()
    assert len(tools) >= 15
    for tool in tools:
        assert getattr(tool.func, DOOR_ATTR, None) == "tool", tool.name


def test_the_console_translates_at_its_door():
    from adk_memory_kit.console import app as console_app

    source = inspect.getsource(console_app.create_app)
    assert "_unexpected(request, exc)" in source  # every route passes the one middleware
