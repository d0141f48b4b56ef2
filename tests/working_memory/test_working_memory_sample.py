"""The sample script runs offline, and its instruction layout keeps the static prefix fixed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "working_memory_agent.py"


@pytest.fixture(scope="module")
def sample():
    spec = importlib.util.spec_from_file_location("working_memory_agent_sample", SAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the model's annotations through it
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


async def test_sample_runs_offline_and_clears_on_completion(sample, monkeypatch, capsys):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    result = await sample.main()
    first, second, third = result["views"]
    assert "Goal: Move booking QX7T2L" in first and "different aircraft" in first
    assert "- keep seat 12A if possible" in second and "different aircraft" not in second
    assert "best_option = AB117 07:40" in second and "booking_ref* = QX7T2L" in second
    assert third == "" and result["state"]["wm"] is None
    assert result["repeated_tool_calls"] == 0
    assert "wm_view after" in capsys.readouterr().out


async def test_static_instruction_is_identical_in_every_request(sample):
    model = sample.scripted_model()
    await sample.main(model, quiet=True)
    system = {str(r.config.system_instruction) for r in model.requests}
    assert len(system) == 1  # the cacheable prefix never changes...
    assert "{wm_view" not in system.pop()
    dynamic = {
        p.text
        for r in model.requests
        for c in r.contents
        for p in c.parts or []
        if p.text and "Current working memory" in p.text
    }
    assert len(dynamic) > 3  # ...while the view in the instruction does
