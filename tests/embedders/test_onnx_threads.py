"""The ONNX session's thread count: the default, the environment override, and bad values."""

from __future__ import annotations

import os

import pytest

from adk_memory_kit.embedders.local import THREADS_ENV, onnx_threads
from adk_memory_kit.errors import EmbedderError


def test_default_is_two_threads_where_the_machine_has_two_cores(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert onnx_threads() == min(2, os.cpu_count() or 1)


def test_the_environment_sets_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    assert onnx_threads() == 1
    monkeypatch.setenv(THREADS_ENV, " 3 ")
    assert onnx_threads() == 3


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5"])
def test_a_bad_count_names_the_variable_not_the_value(
    monkeypatch: pytest.MonkeyPatch, bad: str
) -> None:
    monkeypatch.setenv(THREADS_ENV, bad)
    with pytest.raises(EmbedderError) as caught:
        onnx_threads()
    assert THREADS_ENV in str(caught.value)
    assert f"got {len(bad)} characters" in str(caught.value)


def test_idle_workers_block_instead_of_spinning() -> None:
    """ORT's default spin-wait burned ~5x a query embedding's CPU on the cores the database
    shares (docs/scale.md); the process's session is built with spinning off."""
    from adk_memory_kit.embedders.local import _session

    options = _session().get_session_options()
    for key in ("session.intra_op.allow_spinning", "session.inter_op.allow_spinning"):
        assert options.get_session_config_entry(key) == "0"
