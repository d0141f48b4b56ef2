"""The research assistant the demo runs (the copyable sample lives in agents/research_assistant/).

``web_search`` is an offline stand-in that returns ~2,000 tokens of deterministic text per call,
like a real search/fetch tool would. The model is asked to save what matters with
``save_finding``; once saved, the raw result is stale and the pruner replaces it in later
requests with a tombstone pointing at ``get_findings``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from adk_memory_kit.core.model_access import configured_model
from adk_memory_kit.pruning import PruneStaleToolPayloads
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text

FINDINGS_KEY = "findings"
_TOPICS = ["market size", "pricing", "competitors", "regulation", "adoption", "risks"]


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
    findings.append({"finding": finding.strip()[:500], "source": source.strip()[:200]})
    tool_context.state[FINDINGS_KEY] = findings
    return {"status": "saved", "count": len(findings)}


def get_findings(tool_context: ToolContext) -> dict[str, Any]:
    """Return every finding saved in this session."""
    return {"findings": list(tool_context.state.get(FINDINGS_KEY, []))}


INSTRUCTION = (
    "You are a research assistant. For each question, call web_search, then save each useful "
    "fact with save_finding (short, with its source) before answering. Raw search results may "
    "later be replaced by a 'pruned' note: call get_findings to see what you saved."
)


def offline_research_responder(request: LlmRequest) -> list[types.Part] | str:
    """Scripted behaviour: search, save the first result's gist, then answer."""
    responses = last_function_responses(request)
    if responses:
        response = responses[0]
        payload = response.response or {}
        if response.name == "web_search":
            first = (payload.get("results") or [{}])[0]
            gist = str(first.get("snippet", ""))[:160]
            return [call("save_finding", finding=gist, source=str(first.get("title", "")))]
        if response.name == "get_findings":
            lines = [f"- {f['finding'][:80]} ({f['source']})" for f in payload.get("findings", [])]
            return "[offline scripted model] Saved findings:\n" + "\n".join(lines)
        return "[offline scripted model] Noted; the finding is saved."
    question = last_user_text(request)
    if "finding" in question.lower() or "summar" in question.lower():
        return [call("get_findings")]
    return [call("web_search", query=question.strip()[:120] or "topic")]


def build_research_agent(
    model: str | BaseLlm | None = None, *, pruner: PruneStaleToolPayloads | None = None
) -> LlmAgent:
    """The research assistant with the pruning callback on its model calls."""
    pruner = pruner or PruneStaleToolPayloads(prunable={"web_search"}, keep_recent=4)
    return LlmAgent(
        name="research_assistant",
        model=model or configured_model() or ScriptedLlm(responder=offline_research_responder),
        instruction=INSTRUCTION,
        tools=[web_search, save_finding, get_findings],
        before_model_callback=pruner,
        after_model_callback=pruner.after_model_callback,
    )
