"""Benchmark: the local judge's answers under a JSON-schema grammar, llama-cpp-python's sampler chain against
tracegrade's grammar-last greedy sampler, in one process on the same model and questions.

Usage:
    python benchmarks/bench_local_sampling.py [--tokens 96] [--rounds 2] [--threads N]

Needs the ``local-judge`` extra. Each question is answered from a fresh context (no prompt reuse) with the
server's settings (temperature 0, repeat penalty 1.1, top-5 log-probabilities recorded), alternating the
two samplers round by round. Printed per question: answer tokens, tokens a second with each sampler and the
ratio, and whether both gave the same text, finish reason and log-probabilities (they must).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

from tracegrade.atif.localising._prompts import HALF_SCHEMA, STEP_SCHEMA
from tracegrade.judge.local._plain import PLAIN_CHAT_FORMAT, register_plain_format
from tracegrade.judge.local._runner import LocalJudge
from tracegrade.judge.local._sampling import install_grammar_last_greedy
from tracegrade.judge.local._server import extra_buffers

QUESTIONS = [
    ("step", "An agent was asked for the population of Paris in 1800. It searched the web, read a page about "
             "modern Paris and reported 2.1 million.\n\nIs this step the decisive error? Reply with one JSON "
             "object with the keys decisive and reason.", STEP_SCHEMA),
    ("half", "First half: the agent read the input file and listed its columns. Second half: the agent "
             "divided the totals by a count that was zero and reported the result.\n\nWhich half holds the "
             "decisive error? Reply with one JSON object with the keys half and reason.", HALF_SCHEMA),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=96, help="answer token limit")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None, help="default: as the local judge (its cores)")
    args = parser.parse_args(argv)
    from llama_cpp import Llama

    judge = LocalJudge(threads=args.threads)
    args.threads = judge.threads
    register_plain_format()
    with extra_buffers(judge.extra_buffers):  # as the server loads it
        llm = Llama(model_path=str(judge._assemble()), n_ctx=2048, n_threads=args.threads, verbose=False,
                    logits_all=False, chat_format=PLAIN_CHAT_FORMAT)
    chain_init = type(llm)._init_sampler
    install_grammar_last_greedy()  # what the server does
    fast_init = type(llm)._init_sampler

    load = os.getloadavg()
    print(f"llama-cpp-python sampler chain vs grammar-last greedy, {args.threads} threads, "
          f"{args.rounds} rounds, load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}\n")
    print(f"{'question':<10}{'tokens':>7}{'chain tok/s':>13}{'grammar-last tok/s':>20}{'ratio':>8}  same answer")
    same_everywhere = True
    for name, text, schema in QUESTIONS:
        rates: dict[str, list[float]] = {"chain": [], "fast": []}
        replies: dict[str, list[Any]] = {"chain": [], "fast": []}
        tokens = 0
        for _ in range(args.rounds):
            for which, init in (("chain", chain_init), ("fast", fast_init)):
                type(llm)._init_sampler = init
                llm.reset()
                start = time.perf_counter()
                reply = llm.create_chat_completion(
                    [{"role": "user", "content": text}], max_tokens=args.tokens, temperature=0.0, seed=0,
                    repeat_penalty=1.1, logprobs=True, top_logprobs=5,
                    response_format={"type": "json_object", "schema": schema})
                seconds = time.perf_counter() - start
                tokens = reply["usage"]["completion_tokens"]
                rates[which].append(tokens / seconds)
                choice = reply["choices"][0]
                replies[which].append((choice["message"]["content"], choice["finish_reason"], choice["logprobs"]))
        type(llm)._init_sampler = chain_init
        chain, fast = statistics.median(rates["chain"]), statistics.median(rates["fast"])
        same = all(r == replies["chain"][0] for r in replies["chain"] + replies["fast"])
        same_everywhere &= same
        print(f"{name:<10}{tokens:>7}{chain:>13.1f}{fast:>20.1f}{fast / chain:>7.1f}x  {'yes' if same else 'NO'}")
    print("\n(prompt processing is included in each rate: a few dozen tokens, a fraction of a second)")
    return 0 if same_everywhere else 1


if __name__ == "__main__":
    sys.exit(main())
