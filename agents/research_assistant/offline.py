"""The scripted offline model's behaviour (used when no GOOGLE_API_KEY is set).

It plays the conversation in this folder's README section: each question becomes a
``web_search``, the first result's gist is saved with ``save_finding``, and "Summarize my
findings" lists what ``get_findings`` returned. Every reply is built from the tool results in
the request, never from a fixed text.
"""

from __future__ import annotations

from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adk_memory_kit.testing import call, last_function_responses, last_user_text

from .tools import shorten

OFFLINE = "[offline scripted model]"


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
