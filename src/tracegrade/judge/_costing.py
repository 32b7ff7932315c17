"""What judge requests cost before they are sent: estimated tokens, the prefix-cacheable share, a price.

Tokens are estimated as the bytes of the messages' text divided by four (a documented rule of thumb for English
and JSON with OpenAI's tokenisers; no tokeniser is needed). The prefix cache is modelled on OpenAI's automatic
caching: a request is served the longest prefix it shares with an earlier request of the job, only once that
prefix reaches 1,024 tokens and then in steps of 128 tokens. The model is an upper bound of what a provider
serves: real caches are per server and evict entries after minutes of disuse.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from tracegrade.judge._request import JudgeRequest

__all__ = [
    "BYTES_PER_TOKEN",
    "CACHE_BLOCK_TOKENS",
    "CACHE_MIN_TOKENS",
    "PrefixCacheModel",
    "Prices",
    "estimate_tokens",
    "prompt_bytes",
]

BYTES_PER_TOKEN = 4
"""Bytes of prompt text per estimated token."""
CACHE_MIN_TOKENS = 1024
"""Shortest prefix a provider's cache serves (OpenAI's automatic caching)."""
CACHE_BLOCK_TOKENS = 128
"""Steps in which a cached prefix grows past the minimum."""


def estimate_tokens(size: int) -> int:
    """Tokens of ``size`` bytes of prompt text: ``ceil(size / 4)``."""
    return -(-size // BYTES_PER_TOKEN)


def prompt_bytes(request: JudgeRequest) -> bytes:
    """The text a provider tokenises for ``request``: each message's role and content, in order."""
    return "".join(f"{m['role']}\n{m['content']}\n" for m in request.messages).encode()


class PrefixCacheModel:
    """Serves each prompt the longest prefix it shares with an earlier prompt, as OpenAI's automatic cache does.

    A prompt is its text, ``BYTES_PER_TOKEN`` bytes per token; only prefixes of ``CACHE_MIN_TOKENS`` tokens or
    more count, in steps of ``CACHE_BLOCK_TOKENS``.
    """

    __slots__ = ("_seen",)
    _block = CACHE_BLOCK_TOKENS * BYTES_PER_TOKEN
    _min_blocks = math.ceil(CACHE_MIN_TOKENS / CACHE_BLOCK_TOKENS)

    def __init__(self) -> None:
        self._seen: set[bytes] = set()

    def serve(self, prompt: bytes) -> int:
        """Tokens of ``prompt`` served from the cache; the prompt's own prefixes are then kept for later ones."""
        digest = hashlib.blake2b(digest_size=16)
        served_blocks = 0
        matching = True
        for index, start in enumerate(range(0, len(prompt) - self._block + 1, self._block), start=1):
            digest.update(prompt[start:start + self._block])
            key = digest.digest()
            if matching and key in self._seen:
                served_blocks = index
            else:
                matching = False
                self._seen.add(key)
        blocks = served_blocks if served_blocks >= self._min_blocks else 0
        return blocks * CACHE_BLOCK_TOKENS


@dataclass(frozen=True, slots=True)
class Prices:
    """Prices in a currency per million tokens; batch jobs cost ``batch_factor`` of them (0.5 at OpenAI)."""

    input: float
    cached_input: float
    output: float
    batch_factor: float = 0.5

    def cost(self, input_tokens: int, cached_tokens: int, output_tokens: int, *, batch: bool = False) -> float:
        """The price of the tokens; ``cached_tokens`` are part of ``input_tokens``."""
        total = ((input_tokens - cached_tokens) * self.input + cached_tokens * self.cached_input
                 + output_tokens * self.output) / 1_000_000
        return total * self.batch_factor if batch else total
