"""Pure parts of the episodic log: redaction and size cap, prices, success rule."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone

import pytest

from adk_memory_kit.episodic.config import EpisodicLogConfig
from adk_memory_kit.episodic.entry import LogEntry
from adk_memory_kit.episodic.payload import prepare_payload, redact_value
from adk_memory_kit.episodic.pricing import GEMINI_PRICES, ModelPrice, PriceTable
from adk_memory_kit.episodic.store import EpisodicLog
from adk_memory_kit.episodic.trajectories import trajectory
from adk_memory_kit.errors import InvalidInputError


def test_redaction_covers_nested_values_and_secret_keys():
    value = {
        "api_key": "abc123xyz",  # harmless-looking value, secret by its key
        "note": "my password is hunter2Rex",
        "nested": [{"iban": "GB82 WEST 1234 5698 7654 32"}, ("card 4111 1111 1111 1111",)],
        "count": 3,
        "ok": None,
        "city": "Lisbon",
        "nul\x00key": "a\x00b",
    }
    out = redact_value(value)
    assert out["api_key"] == "[REDACTED:credential]"
    assert out["note"] == "my password is [REDACTED:credential]"  # granular (issue 23)
    assert out["nested"][0]["iban"] == "[REDACTED:iban]"
    assert out["nested"][1] == ["card [REDACTED:payment_card]"]
    assert (out["count"], out["ok"], out["city"]) == (3, None, "Lisbon")
    assert out["nulkey"] == "ab"


def test_payload_cap_keeps_size_and_hash_of_the_redacted_json():
    small = prepare_payload({"a": "b"}, 1024)
    assert json.loads(small) == {"a": "b"}
    big = json.loads(prepare_payload({"secret": "s3cretValue9", "blob": "y" * 3000}, 1024))
    full = json.dumps(
        {"blob": "y" * 3000, "secret": "[REDACTED:credential]"},
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=True,
    ).encode()
    assert big["truncated"] is True and big["size"] == len(full)
    assert big["sha256"] == hashlib.sha256(full).hexdigest()
    assert big["head"].startswith('{"blob":"yyy') and len(big["head"]) <= 1024


def test_prices_match_exactly_and_unknown_is_none():
    table = PriceTable()
    assert table.cost("gemini-2.5-flash", 1_000_000, 1_000_000) == pytest.approx(2.80)
    assert table.cost("models/gemini-2.0-flash-001", 1_000_000, 0) == pytest.approx(0.10)
    assert table.cost("gemini-2.5-flash-image", 10, 10) is None
    assert table.cost("gpt-4o", 10, 10) is None and table.cost(None, 1, 1) is None
    assert table.cost("gemini-2.5-flash", None, 5) is None
    pro = GEMINI_PRICES["gemini-2.5-pro"]
    assert pro.cost(200_000, 0) == pytest.approx(0.25)
    assert pro.cost(200_001, 1_000_000) == pytest.approx(200_001 * 2.5 / 1e6 + 15.0)
    custom = PriceTable.with_overrides({"my-model": {"input_per_mtok": 1, "output_per_mtok": 2}})
    assert custom.cost("my-model", 1_000_000, 1_000_000) == pytest.approx(3.0)
    assert custom.cost("gemini-2.5-flash", 1_000_000, 0) == pytest.approx(0.30)
    with pytest.raises(ValueError):
        ModelPrice(input_per_mtok=-1, output_per_mtok=0)


def test_bad_log_settings_are_refused_before_connecting():
    with pytest.raises(InvalidInputError, match="batch_size"):
        EpisodicLog("postgresql+psycopg://x@127.0.0.1:1/db", batch_size=0)
    with pytest.raises(InvalidInputError, match="retention_days"):
        EpisodicLog("postgresql+psycopg://x@127.0.0.1:1/db", retention_days=0)


def test_bad_prices_are_a_kit_error_naming_the_model_and_field():
    url = "postgresql+psycopg://x@127.0.0.1:1/db"
    with pytest.raises(InvalidInputError, match=r"prices\['m'\] must be a ModelPrice") as bad:
        EpisodicLog(url, prices={"m": 5})
    assert "got int" in str(bad.value)
    with pytest.raises(InvalidInputError, match=r"prices\['m'\]\.input_per_mtok"):
        EpisodicLog(url, prices={"m": {"input_per_mtok": -1, "output_per_mtok": 1}})
    with pytest.raises(InvalidInputError, match=r"prices\['m'\]\.output_per_mtok: Field required"):
        EpisodicLog(url, prices={"m": {"input_per_mtok": 1}})
    with pytest.raises(InvalidInputError, match="each key must be a model name"):
        EpisodicLog(url, prices={7: ModelPrice(input_per_mtok=1, output_per_mtok=1)})
    with pytest.raises(InvalidInputError, match="prices must be a mapping"):
        EpisodicLog(url, prices=5)


def test_log_options_are_one_config_model():
    url = "postgresql+psycopg://x@127.0.0.1:1/db"
    config = EpisodicLogConfig(batch_size=8, max_pending=8, retention_days=30)
    log = EpisodicLog(url, config=config)
    assert log.config is config and (log.batch_size, log.max_pending) == (8, 8)
    assert EpisodicLog(url, batch_size=8, max_pending=8, retention_days=30).config == config
    with pytest.raises(InvalidInputError, match="max_pending must be at least batch_size"):
        EpisodicLog(url, batch_size=64, max_pending=10)
    with pytest.raises(InvalidInputError, match="EpisodicLogConfig.flush_interval"):
        EpisodicLog(url, flush_interval=float("nan"))
    with pytest.raises(InvalidInputError, match="EpisodicLogConfig.batch_size"):
        EpisodicLog(url, batch_size=True)
    with pytest.raises(InvalidInputError, match="EpisodicLogConfig.batch_size_typo"):
        EpisodicLog(url, batch_size_typo=3)
    with pytest.raises(InvalidInputError, match="not both"):
        EpisodicLog(url, config=config, batch_size=8)
    with pytest.raises(InvalidInputError, match="config must be an EpisodicLogConfig"):
        EpisodicLog(url, config={"batch_size": 8})


def _entry(seq: int, kind: str, name: str = "", **kw) -> LogEntry:
    base = dict(app_name="a", user_id="u", session_id="s", invocation_id="i", agent="ag")
    return LogEntry(seq=seq, time=datetime.now(timezone.utc), kind=kind, name=name, **base, **kw)


def test_success_rule_for_trajectories():
    task = _entry(1, "user_message", "user", payload={"text": "t"})
    plan = _entry(2, "model_call", "m", payload={"text": "", "function_calls": [{"name": "x"}]},
                  cost_usd=0.5)  # fmt: skip
    step = _entry(3, "tool_call", "x", payload={"args": {}, "result": {"ok": 1}})
    answer = _entry(4, "model_call", "m", payload={"text": "done"}, cost_usd=0.25)
    line = trajectory([task, plan, step, answer])
    assert line["task"] == "t" and line["final_answer"] == "done" and line["cost_usd"] == 0.75
    assert trajectory([task, plan, step]) is None  # cut off: no final answer
    assert trajectory([plan, step, answer]) is None  # no task
    failed = _entry(3, "tool_error", "x", error_type="ValueError")
    assert trajectory([task, plan, failed, answer]) is None
    model_error = _entry(4, "model_call", "m", payload={"text": "x"}, error_code="500")
    assert trajectory([task, model_error]) is None
