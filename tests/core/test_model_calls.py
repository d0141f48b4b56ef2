"""The one non-streaming model call the kit makes itself (core/model_calls.py), against the
offline ScriptedLlm (a real BaseLlm)."""

from __future__ import annotations

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from adk_memory_kit.core.model_calls import final_response, response_text
from adk_memory_kit.errors import MemoryKitError
from adk_memory_kit.testing import ScriptedLlm

SECRET = "my card is 4111 1111 1111 1111"


class ProbeError(MemoryKitError):
    pass


def _request(text: str) -> LlmRequest:
    return LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text=text)])])


async def test_a_provider_error_names_its_code_never_its_message():
    model = ScriptedLlm(turns=[LlmResponse(error_code="SAFETY", error_message=SECRET)])
    with pytest.raises(ProbeError) as raised:
        await final_response(model, _request(SECRET), what="the probe model", error=ProbeError)
    assert "SAFETY" in str(raised.value) and "the probe model" in str(raised.value)
    assert "4111" not in str(raised.value)


async def test_no_content_is_an_error_of_the_callers_class():
    model = ScriptedLlm(turns=[LlmResponse()])
    with pytest.raises(ValueError, match="returned no content"):
        await final_response(model, _request("hi"), what="the probe model", error=ValueError)


async def test_the_answer_text_leaves_out_thoughts():
    parts = [
        types.Part(text="pondering", thought=True),
        types.Part(text='{"a": '),
        types.Part(text="1}"),
    ]
    model = ScriptedLlm(turns=[parts])
    response = await final_response(model, _request("hi"), what="m", error=ProbeError)
    assert response_text(response) == '{"a": 1}'
    assert response_text(LlmResponse()) == ""


class _Streaming(ScriptedLlm):
    """A scripted model that sends partial responses around the final one."""

    async def generate_content_async(self, llm_request, stream=False):
        def text(t: str) -> types.Content:
            return types.Content(role="model", parts=[types.Part(text=t)])

        yield LlmResponse(content=text('{"half'), partial=True)
        yield LlmResponse(content=text('{"whole": true}'))
        yield LlmResponse(content=text("trailing"), partial=True)


async def test_a_partial_response_is_never_the_final_one():
    response = await final_response(_Streaming(), _request("hi"), what="m", error=ProbeError)
    assert response_text(response) == '{"whole": true}'
