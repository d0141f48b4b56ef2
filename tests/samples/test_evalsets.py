"""Each agent's eval set passes offline: through ADK's ``AgentEvaluator`` and the ``adk eval`` CLI.

The eval sets (``agents/<name>/<name>.evalset.json``) hold the README conversation with its
tool trajectory and replies; ``test_config.json`` asks for ``tool_trajectory_avg_score`` 1.0
and ``response_match_score`` (ROUGE-1) 0.8, metrics that need no model.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from google.adk.evaluation.agent_evaluator import AgentEvaluator
from google.adk.evaluation.eval_set import EvalSet

from tests.samples.evalsets import CONVERSATIONS
from tests.support.samples import (
    ADK,
    AGENT_NAMES,
    AGENTS_DIR,
    MODEL_ENV_VARS,
    copy_agent_alone,
    offline_env,
)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_evalset_holds_the_readme_conversation_with_tool_trajectories(name):
    evalset = EvalSet.model_validate_json((AGENTS_DIR / name / f"{name}.evalset.json").read_text())
    (case,) = evalset.eval_cases
    said = [i.user_content.parts[0].text for i in case.conversation]
    assert tuple(said) == CONVERSATIONS[name]
    assert all(i.intermediate_data.tool_uses for i in case.conversation[:1])
    config = json.loads((AGENTS_DIR / name / "test_config.json").read_text())
    assert config["criteria"] == {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}


@pytest.mark.parametrize("name", AGENT_NAMES)
async def test_agent_evaluator_passes_the_evalset(name, monkeypatch):
    for var in MODEL_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.syspath_prepend(str(AGENTS_DIR))
    for module in [m for m in sys.modules if m.split(".")[0] == name]:
        monkeypatch.delitem(sys.modules, module)  # built offline, in this test
    await AgentEvaluator.evaluate(  # raises AssertionError when a metric misses its threshold
        agent_module=name,
        eval_dataset_file_path_or_dir=str(AGENTS_DIR / name / f"{name}.evalset.json"),
        num_runs=1,
        print_detailed_results=False,
    )
    for module in [m for m in sys.modules if m.split(".")[0] == name]:
        del sys.modules[module]


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_adk_eval_cli_passes_offline(name, tmp_path):
    """``adk eval <agent> <agent>/<name>.evalset.json`` on a copy (its .adk/ history goes there)."""
    agent = copy_agent_alone(name, tmp_path / "agents")
    done = subprocess.run(
        [ADK, "eval", str(agent), str(agent / f"{name}.evalset.json")],
        env=offline_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "Tests passed: 1" in out and "Tests failed: 0" in out
