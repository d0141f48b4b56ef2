"""Per-model prices: a configurable table, Gemini defaults, and "unknown" instead of a guess.

Prices are USD per one million tokens. A model that is not in the table has no price and its
cost is ``None`` (unknown), never a nearest match: ``gemini-2.5-flash-image`` is not priced as
``gemini-2.5-flash``. Names match exactly after dropping a ``models/`` prefix and a numeric
version suffix (``gemini-2.0-flash-001`` is ``gemini-2.0-flash``).

Output tokens include thinking tokens (Gemini bills them as output). Cached input tokens are
charged at the input price (an upper bound; context-cache discounts and storage fees are not
modelled), and so are audio inputs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, NonNegativeFloat, PositiveInt, ValidationError

from adk_memory_kit.core.config import describe_validation_error
from adk_memory_kit.core.validation import short
from adk_memory_kit.errors import InvalidInputError

PRICES_SOURCE = (
    "Gemini Developer API paid tier, text input/output, standard (non-batch) rates, from "
    "https://ai.google.dev/gemini-api/docs/pricing as published in mid-2025 (checked "
    "2025-07). Vertex AI and later price changes may differ: pass your own table."
)


class ModelPrice(BaseModel):
    """USD per million tokens; prompts above ``long_context_tokens`` use the long rates."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_mtok: NonNegativeFloat
    output_per_mtok: NonNegativeFloat
    long_context_tokens: PositiveInt | None = None
    long_input_per_mtok: NonNegativeFloat | None = None
    long_output_per_mtok: NonNegativeFloat | None = None

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The cost in USD of one call with these token counts."""
        long = self.long_context_tokens is not None and input_tokens > self.long_context_tokens
        rate_in = (
            self.long_input_per_mtok
            if long and self.long_input_per_mtok is not None
            else (self.input_per_mtok)
        )
        rate_out = (
            self.long_output_per_mtok
            if long and self.long_output_per_mtok is not None
            else self.output_per_mtok
        )
        return (input_tokens * rate_in + output_tokens * rate_out) / 1_000_000


#: Defaults for the Gemini family (see :data:`PRICES_SOURCE`).
GEMINI_PRICES: Mapping[str, ModelPrice] = {
    "gemini-2.5-pro": ModelPrice(
        input_per_mtok=1.25,
        output_per_mtok=10.0,
        long_context_tokens=200_000,
        long_input_per_mtok=2.50,
        long_output_per_mtok=15.0,
    ),
    "gemini-2.5-flash": ModelPrice(input_per_mtok=0.30, output_per_mtok=2.50),
    "gemini-2.5-flash-lite": ModelPrice(input_per_mtok=0.10, output_per_mtok=0.40),
    "gemini-2.0-flash": ModelPrice(input_per_mtok=0.10, output_per_mtok=0.40),
    "gemini-2.0-flash-lite": ModelPrice(input_per_mtok=0.075, output_per_mtok=0.30),
}

_VERSION_SUFFIX = re.compile(r"-\d{3}$")


def _model_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError(
            f"prices: each key must be a model name (non-empty text), got {type(name).__name__}"
        )
    return name


def _model_price(name: str, price: object) -> ModelPrice:
    """``price`` as a :class:`ModelPrice` (one, or a mapping of its fields)."""
    if isinstance(price, ModelPrice):
        return price
    if not isinstance(price, Mapping):
        raise InvalidInputError(
            f"prices[{short(name)}] must be a ModelPrice or a mapping of its fields "
            f"(input_per_mtok, output_per_mtok, ...), got {type(price).__name__}"
        )
    try:
        return ModelPrice.model_validate(dict(price))
    except ValidationError as exc:
        raise InvalidInputError(describe_validation_error(f"prices[{short(name)}]", exc)) from exc


class PriceTable(BaseModel):
    """Model name -> :class:`ModelPrice`. ``cost`` returns ``None`` for an unknown model."""

    model_config = ConfigDict(frozen=True)

    prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(GEMINI_PRICES))
    source: str = PRICES_SOURCE

    @classmethod
    def with_overrides(cls, overrides: Mapping[str, ModelPrice | Mapping]) -> PriceTable:
        """The Gemini defaults plus (or replaced by) ``overrides``."""
        if not isinstance(overrides, Mapping):
            raise InvalidInputError("prices must be a mapping of model name to ModelPrice")
        merged = dict(GEMINI_PRICES)
        for name, price in overrides.items():
            merged[_model_name(name)] = _model_price(name, price)
        return cls(prices=merged, source=PRICES_SOURCE + " Overridden: " + ", ".join(overrides))

    def price_for(self, model: str | None) -> ModelPrice | None:
        """The price of ``model``, or ``None`` when the table does not list it."""
        if not model:
            return None
        name = model.removeprefix("models/")
        price = self.prices.get(name)
        if price is None:
            price = self.prices.get(_VERSION_SUFFIX.sub("", name))
        return price

    def cost(self, model: str | None, input_tokens: int | None, output_tokens: int | None):
        """USD for one call, or ``None`` when the model or a token count is unknown."""
        price = self.price_for(model)
        if price is None or input_tokens is None or output_tokens is None:
            return None
        return price.cost(input_tokens, output_tokens)
