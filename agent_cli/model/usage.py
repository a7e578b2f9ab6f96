"""Token accounting and cost estimates."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agent_cli.core.settings.schema import Price


class Usage(BaseModel):
    """Tokens of one call, or a running total."""

    input_tokens: int = Field(default=0, description="Uncached input tokens.")
    output_tokens: int = Field(default=0, description="Output tokens.")
    cache_read_input_tokens: int = Field(default=0, description="Input read from the cache.")
    cache_creation_input_tokens: int = Field(default=0, description="Input written to the cache.")
    cache_creation_1h_input_tokens: int = Field(
        default=0,
        description="Of the cache writes, those kept for an hour (priced 2x input).",
        exclude_if=lambda tokens: tokens == 0,  # said only where an hour was asked for
    )
    web_search_requests: int = Field(default=0, description="Web searches the server tool ran.")

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_creation_1h_input_tokens=self.cache_creation_1h_input_tokens
            + other.cache_creation_1h_input_tokens,
            web_search_requests=self.web_search_requests + other.web_search_requests,
        )

    @property
    def context_tokens(self) -> int:
        """Everything the request occupied in the context window."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens

    def cost(self, price: Price | None) -> float | None:
        if price is None:
            return None
        hour = min(self.cache_creation_1h_input_tokens, self.cache_creation_input_tokens)
        hour_price = price.input * 2 if price.cache_write_1h is None else price.cache_write_1h
        return (
            self.input_tokens * price.input
            + self.output_tokens * price.output
            + self.cache_read_input_tokens * price.cache_read
            + (self.cache_creation_input_tokens - hour) * price.cache_write
            + hour * hour_price
        ) / 1_000_000 + self.web_search_requests * price.web_search_per_1k / 1_000
