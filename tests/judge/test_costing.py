from __future__ import annotations

import random

import pytest

from tracegrade.judge import JudgeRequest, PrefixCacheModel, Prices, estimate_tokens, prompt_bytes


def text(tokens: int, seed: int) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(97, 123) for _ in range(tokens * 4))  # 4 bytes a token


def test_a_prefix_is_served_from_1024_tokens_on_in_128_token_blocks() -> None:
    cache = PrefixCacheModel()
    shared = text(2000, 1)
    assert cache.serve(shared + text(100, 2)) == 0  # the first request: nothing cached yet
    assert cache.serve(shared + text(300, 3)) == 1920  # 2,000 shared tokens: 15 whole blocks
    assert cache.serve(text(1000, 1) + text(500, 4)) == 0  # 1,000 shared tokens: under the minimum
    assert cache.serve(text(500, 5)) == 0


def test_the_longest_prefix_shared_with_any_earlier_request_counts() -> None:
    cache = PrefixCacheModel()
    base = text(3000, 7)
    cache.serve(base)
    cache.serve(base[:1500 * 4] + text(10, 8))
    assert cache.serve(base[:2600 * 4] + text(400, 9)) == 2560


def test_tokens_are_bytes_over_four_and_the_prompt_is_every_message() -> None:
    assert [estimate_tokens(n) for n in (0, 1, 4, 5)] == [0, 1, 1, 2]
    request = JudgeRequest("score", ({"role": "system", "content": "S"}, {"role": "user", "content": "é"}), {}, "h")
    assert prompt_bytes(request) == "system\nS\nuser\né\n".encode()


def test_prices_are_per_million_tokens_with_cached_input_and_batch() -> None:
    prices = Prices(input=1.0, cached_input=0.25, output=4.0)
    assert prices.cost(1_000_000, 0, 0) == pytest.approx(1.0)
    assert prices.cost(1_000_000, 800_000, 250_000) == pytest.approx(0.2 + 0.2 + 1.0)
    assert prices.cost(1_000_000, 800_000, 250_000, batch=True) == pytest.approx(0.7)
