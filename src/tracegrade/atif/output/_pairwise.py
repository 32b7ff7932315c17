"""``compare --pairwise``: the judge's preferences between paired trajectories, their rates, the gate, the files.

Each pair is asked in both orders. The pair's outcome is the candidate's ``win``, ``tie`` or ``loss`` when both
answers agree once the order is undone, else ``position_bias`` (an answer that flips with the order is not a
preference). Rates are over the pairs with both answers (``n``); position-biased pairs count as neither win nor
loss. The interval of the win-minus-loss rate resamples pairs (each pair is one unit: a paired design).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from tracegrade import stats
from tracegrade.atif.output._comparison_output import fit, gate_lines, interval_text, write_comparison_folder
from tracegrade.atif.reading._records import FrozenRecord
from tracegrade.render import MISSING, render_html
from tracegrade.stats import GateOptions, GateVerdict

__all__ = ["PAIRWISE_FORMAT", "Outcome", "PairVerdict", "PairwiseComparison", "Rate", "pair_outcome", "pairwise_gate",
           "pairwise_lines", "summarise_pairs", "write_pairwise"]

PAIRWISE_FORMAT: Literal["tracegrade.atif.pairwise_comparison/1"] = "tracegrade.atif.pairwise_comparison/1"
Outcome = Literal["win", "tie", "loss", "position_bias", "error", "refused"]
Choice = Literal["baseline", "candidate", "tie"]


class Answer(FrozenRecord):
    """One order's answer, read back in the runs' terms."""

    order: Literal["baseline_first", "candidate_first"]
    choice: Choice | None = Field(description="The run the judge preferred; null when it gave no usable answer.")
    reason: str | None
    view: str | None = Field(None, description="full or compact: how the steps were shown to fit the budget.")
    error_code: str | None = None


class PairVerdict(FrozenRecord):
    """One paired root and the judge's verdict on it."""

    id: str = Field(description="The baseline root's path relative to its input root.")
    candidate_root: str
    matched_by: str
    outcome: Outcome = Field(description="The candidate's outcome; position_bias when the two orders disagree.")
    answers: list[Answer] = Field(description="Baseline first, then candidate first.")
    error: str | None = Field(None, description="Why an error or refused pair has no verdict.")


class Rate(FrozenRecord):
    """A share of the pairs with its percentile bootstrap interval over pairs."""

    value: float | None
    low: float | None
    high: float | None
    n: int


class PairwiseComparison(FrozenRecord):
    """What ``comparison.json`` holds for ``compare --pairwise``."""

    format: Literal["tracegrade.atif.pairwise_comparison/1"] = PAIRWISE_FORMAT
    baseline: str
    candidate: str
    judge: dict[str, Any] = Field(description="The judge's recorded identity (no secrets).")
    prompt_version: str
    pairing: dict[str, int]
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    n: int = Field(description="Pairs with a usable answer in both orders.")
    counts: dict[str, int] = Field(description="Pairs by outcome.")
    win_rate: Rate
    tie_rate: Rate
    loss_rate: Rate
    position_bias_rate: Rate
    net_win_rate: Rate = Field(description="Win rate − loss rate: the mean of +1 (win), 0, −1 (loss) per pair.")
    sign_test_p: float | None = Field(description="Exact two-sided sign test of wins against losses.")
    resamples: int
    level: float
    seed: int
    gate: GateVerdict
    pairs: list[PairVerdict] = Field(description="Losses first, then position bias, ties, wins, errors.")
    judge_calls: dict[str, int] = Field(description="Judge counters: requests, cache hits, errors.")


def pair_outcome(first: Choice | None, second: Choice | None) -> Outcome:
    """The candidate's outcome from the answers of the two orders (both read back in the runs' terms)."""
    if first is None or second is None:
        return "error"
    if first != second:
        return "position_bias"
    return {"candidate": "win", "baseline": "loss", "tie": "tie"}[first]  # type: ignore[return-value]


def _rate(values: list[float], resamples: int, level: float, seed: int) -> Rate:
    if not values:
        return Rate(value=None, low=None, high=None, n=0)
    interval = stats.bootstrap_mean_ci(values, resamples=resamples, level=level, seed=seed)
    return Rate(value=interval.estimate, low=interval.low, high=interval.high, n=interval.n)


def summarise_pairs(pairs: list[PairVerdict], *, resamples: int, level: float, seed: int) -> dict[str, Any]:
    """Counts, the rates with their intervals and the sign test of ``pairs``."""
    decided = [p.outcome for p in pairs if p.outcome in ("win", "tie", "loss", "position_bias")]
    counts = {name: sum(1 for p in pairs if p.outcome == name)
              for name in ("win", "tie", "loss", "position_bias", "error", "refused")}

    def share(name: str) -> Rate:
        return _rate([1.0 if o == name else 0.0 for o in decided], resamples, level, seed)

    net = [1.0 if o == "win" else -1.0 if o == "loss" else 0.0 for o in decided]
    return {
        "n": len(decided), "counts": counts, "win_rate": share("win"), "tie_rate": share("tie"),
        "loss_rate": share("loss"), "position_bias_rate": share("position_bias"),
        "net_win_rate": _rate(net, resamples, level, seed),
        "sign_test_p": stats.sign_test(counts["win"], counts["loss"]).p_value,
    }


def pairwise_gate(net: Rate, losses: int, options: GateOptions) -> GateVerdict:
    """The gate of a pairwise comparison.

    ``--fail-on-regression`` fires when the net win rate is below −min_delta and its interval lies below zero
    (or no interval decides it); ``--fail-on-new-failures`` when the candidate lost any pair in both orders.
    """
    checked, fired = [], []
    if options.fail_on_regression:
        checked.append("fail_on_regression")
        if net.high is None:
            fired.append(f"fail_on_regression: the net win rate has no interval (n={net.n}), so no regression "
                         "can be ruled out")
        elif net.value is not None and net.value < -options.min_delta and net.high < 0:
            fired.append(f"fail_on_regression: net win rate {net.value:+.3f}, interval [{net.low:+.3f}, "
                         f"{net.high:+.3f}] lies below 0 (n={net.n})")
    if options.fail_on_new_failures:
        checked.append("fail_on_new_failures")
        if losses:
            fired.append(f"fail_on_new_failures: the judge preferred the baseline in both orders on {losses} pair(s)")
    return GateVerdict(exit_code=1 if fired else 0, fired=fired, checked=checked)


def _rate_text(rate: Rate, signed: bool = False) -> str:
    if rate.value is None:
        return f"{MISSING} (n=0)"
    return interval_text(rate.value, rate.low, rate.high, signed=signed)


def pairwise_lines(c: PairwiseComparison) -> list[str]:
    """The terminal summary of ``compare --pairwise``: every line at most 80 characters."""
    counts = c.counts
    lines = [
        f"pairwise: judge {c.judge.get('model', MISSING)}, both orders per pair",
        f"pairs {len(c.pairs)}; only in baseline {len(c.only_in_baseline)}, only in candidate "
        f"{len(c.only_in_candidate)}",
        f"candidate wins {counts['win']}, ties {counts['tie']}, losses {counts['loss']}, "
        f"position bias {counts['position_bias']} (n={c.n})",
        f"  errors {counts['error']}, refused {counts['refused']} (left out of the rates)",
        f"win rate {_rate_text(c.win_rate)}, loss rate {_rate_text(c.loss_rate)}",
        f"net win rate {_rate_text(c.net_win_rate, True)}; sign test p "
        f"{MISSING if c.sign_test_p is None else format(c.sign_test_p, '.4f')}",
        f"position-bias rate {_rate_text(c.position_bias_rate)}",
    ]
    lost = [p for p in c.pairs if p.outcome == "loss"][:5]
    if lost:
        lines.append("lost pairs:")
        lines += [f"  {p.id}" for p in lost]
    lines += gate_lines(c.gate)
    return [fit(line) for line in lines]


def render_pairwise(c: PairwiseComparison, steps: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]], *,
                    generated_at: str) -> str:
    """The self-contained ``comparison.html``: rates, and each pair's verdict and reasons beside both runs."""
    return render_html(
        "atif_pairwise.html", title=f"Pairwise: {c.baseline} vs {c.candidate}",
        subtitle=f"judge {c.judge.get('model', MISSING)} · prompt {c.prompt_version}", comparison=c,
        steps=steps, rates=[("win", c.win_rate), ("tie", c.tie_rate), ("loss", c.loss_rate),
                            ("position bias", c.position_bias_rate), ("net win (win − loss)", c.net_win_rate)],
        generated_at=generated_at,
        sections=[{"id": "rates", "label": "Rates"}, {"id": "pairs", "label": "Pairs"}],
    )


def write_pairwise(c: PairwiseComparison, steps: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]],
                   out_dir: Path) -> dict[str, Path]:
    """Write ``comparison.json`` and ``comparison.html``, then the manifest; paths by name.

    Raises:
        OutputError: the folder cannot be written.
    """
    return write_comparison_folder(out_dir, kind="atif-compare-pairwise", job_id=f"pairwise-{c.prompt_version}",
                                   comparison=c, gate=c.gate,
                                   render=lambda stamp: render_pairwise(c, steps, generated_at=stamp))
