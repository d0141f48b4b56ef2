"""The research assistant's instruction, tools and scripted offline behaviour (no API key).

Shared by the sample agent (``agents/research_assistant``) and ``adk-memory-kit demo``.

``web_search`` is an offline stand-in returning ~2,000 tokens of deterministic text per call,
like a real search or fetch tool. ``save_finding`` keeps the distilled fact in session state
(``findings``), so the raw result can be pruned from later requests.
"""

from __future__ import annotations

import hashlib
import textwrap
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from adk_memory_kit.testing.llm import call, last_function_responses, last_user_text

RESEARCH_INSTRUCTION = (
    "You are a research assistant. For each question, call web_search, then save each useful "
    "fact with save_finding (short, with its source) before answering. Raw search results may "
    "later be replaced by a 'pruned' note: call get_findings to see what you saved."
)
"""The research assistant's instruction (for a real model; the scripted one ignores it)."""

OFFLINE = "[offline scripted model]"
FINDINGS_KEY = "findings"
FINDING_CHARS = 300
SOURCE_CHARS = 120
_TOPICS = ["market size", "pricing", "competitors", "regulation", "adoption", "risks"]


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary with an ellipsis when over ``limit``."""
    return textwrap.shorten(text, width=limit, placeholder=" …")


def web_search(query: str) -> dict[str, Any]:
    """Search the web and return the top results as long text snippets.

    Args:
        query: what to search for.
    """
    seed = int(hashlib.sha256(query.encode()).hexdigest()[:8], 16)
    results = []
    for rank in range(5):
        topic = _TOPICS[(seed + rank) % len(_TOPICS)]
        body = " ".join(
            f"Source {rank + 1} on {query} ({topic}), paragraph {p + 1}: analysts report "
            f"figure {(seed >> p) % 97 + rank} for {topic}, with caveats about sampling, "
            f"regional differences and the methodology of the underlying survey."
            for p in range(9)
        )
        results.append({"title": f"{query} - {topic} report #{rank + 1}", "snippet": body})
    return {"query": query, "results": results}


def save_finding(finding: str, source: str, tool_context: ToolContext) -> dict[str, Any]:
    """Save one distilled finding (a sentence or two) so raw results can be dropped.

    Args:
        finding: the fact worth keeping, in your own words.
        source: where it came from (a result title or URL).
    """
    findings = list(tool_context.state.get(FINDINGS_KEY, []))
    findings.append(
        {"finding": shorten(finding, FINDING_CHARS), "source": shorten(source, SOURCE_CHARS)}
    )
    tool_context.state[FINDINGS_KEY] = findings
    return {"status": "saved", "findings_saved": len(findings)}


def get_findings(tool_context: ToolContext) -> dict[str, Any]:
    """Return every finding saved in this session."""
    return {"findings": list(tool_context.state.get(FINDINGS_KEY, []))}


def offline_research_responder(request: LlmRequest) -> list[types.Part] | str:
    """Search, save the first result's gist, then answer from the saved findings."""
    responses = last_function_responses(request)
    if responses:
        name, payload = responses[0].name, responses[0].response or {}
        if name == "web_search":
            first = (payload.get("results") or [{}])[0]
            gist = shorten(str(first.get("snippet", "")), 160)
            return [call("save_finding", finding=gist, source=str(first.get("title", "")))]
        if name == "save_finding":
            saved = payload.get("findings_saved")
            return f"{OFFLINE} Saved finding {saved}; ask the next question."
        if name == "get_findings":
            found = payload.get("findings") or []
            lines = [f"- {shorten(f['finding'], 90)} ({f['source']})" for f in found]
            return f"{OFFLINE} Saved findings ({len(found)}):\n" + "\n".join(lines)
        return f"{OFFLINE} Done."
    question = last_user_text(request).strip()
    if "finding" in question.lower() or "summar" in question.lower():
        return [call("get_findings")]
    return [call("web_search", query=question[:120] or "topic")]
