"""Answer scoring: the KDD Cup Phase-1 column-signature score, DataSpace task accuracy, multi-level P/R/F1.

Pure functions over :class:`AnswerTable` values; see docs/dabench-scoring.md for every rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from tracegrade.dabench.reading._cells import normalise_cell
from tracegrade.dabench.reading._records import AnswerTable

__all__ = ["AnswerScore", "KddMatch", "columns_of", "dataspace_check", "kdd_match", "kdd_score", "score_answer"]

Column = tuple[str, ...]
MAX_PERMUTATION_CHECKS = 5000


@dataclass(frozen=True, slots=True)
class KddMatch:
    """One-to-one column-signature matching between gold and prediction columns."""

    covered_gold_columns: int
    matched_prediction_columns: int
    gold_columns: int
    prediction_columns: int

    @property
    def recall(self) -> float:
        """Covered gold columns over gold columns (0 for a gold table without columns)."""
        return self.covered_gold_columns / self.gold_columns if self.gold_columns else 0.0

    @property
    def extra_columns(self) -> int:
        """Prediction columns that matched nothing."""
        return self.prediction_columns - self.matched_prediction_columns


@dataclass(frozen=True, slots=True)
class AnswerScore:
    """Every answer metric of one task."""

    final_score: float
    match: KddMatch
    gold_rows: int
    prediction_rows: int
    matched_cells: int
    dataspace_pass: bool
    dataspace_error: str | None
    prediction_error: str | None
    """``missing_prediction`` / ``invalid_prediction_csv`` when the prediction could not be used."""


def columns_of(table: AnswerTable) -> list[Column]:
    """Normalised cell values column by column."""
    width = len(table.columns)
    return [tuple(normalise_cell(row[i]) for row in table.rows) for i in range(width)]


def kdd_score(match: KddMatch, lam: float) -> float:
    """``max(0, recall − λ · extra / predicted)``; the penalty is 0 when nothing was predicted."""
    penalty = lam * match.extra_columns / match.prediction_columns if match.prediction_columns else 0.0
    return max(0.0, match.recall - penalty)


def kdd_match(gold: Sequence[Column], pred: Sequence[Column]) -> KddMatch:
    """Match columns one-to-one on identical signatures, then apply the name split/merge rule."""
    gsig = [tuple(sorted(c)) for c in gold]
    psig = [tuple(sorted(c)) for c in pred]
    free_pred: dict[Column, list[int]] = {}
    for index, sig in enumerate(psig):
        free_pred.setdefault(sig, []).append(index)
    open_gold: list[int] = []
    open_pred = set(range(len(pred)))
    for gi, sig in enumerate(gsig):
        bucket = free_pred.get(sig)
        if bucket:
            open_pred.discard(bucket.pop(0))
        else:
            open_gold.append(gi)
    covered = len(gold) - len(open_gold)
    matched = len(pred) - len(open_pred)
    merged_gold, merged_pred = _name_rule(gold, pred, gsig, psig, open_gold, sorted(open_pred))
    return KddMatch(covered + merged_gold, matched + merged_pred, len(gold), len(pred))


def _joined(a: Column, b: Column) -> Column:
    return tuple(sorted(f"{x} {y}" for x, y in zip(a, b, strict=True)))


def _spaced(sig: Column) -> bool:
    return bool(sig) and all(" " in v for v in sig)


def _name_rule(gold: Sequence[Column], pred: Sequence[Column], gsig: Sequence[Column], psig: Sequence[Column],
               open_gold: list[int], open_pred: list[int]) -> tuple[int, int]:
    """Gold (first, last) may match one "first last" prediction column, and vice versa (2→1 and 1→2)."""
    covered = matched = 0
    for p in [p for p in open_pred if _spaced(psig[p])]:
        pair = _find_pair(gold, open_gold, psig[p])
        if pair is not None:
            open_gold.remove(pair[0])
            open_gold.remove(pair[1])
            open_pred.remove(p)
            covered, matched = covered + 2, matched + 1
    for g in [g for g in open_gold if _spaced(gsig[g])]:
        pair = _find_pair(pred, open_pred, gsig[g])
        if pair is not None:
            open_pred.remove(pair[0])
            open_pred.remove(pair[1])
            covered, matched = covered + 1, matched + 2
    return covered, matched


def _find_pair(columns: Sequence[Column], candidates: list[int], target: Column) -> tuple[int, int] | None:
    for a, b in permutations(candidates, 2):
        if len(columns[a]) == len(target) and _joined(columns[a], columns[b]) == target:
            return a, b
    return None


def dataspace_check(gold: Sequence[Column], pred: Sequence[Column]) -> tuple[bool, str | None]:
    """DataSpace binary pass: equal shape and a column permutation making the row multisets equal."""
    if len(gold) != len(pred):
        return False, "column_count_mismatch"
    gold_rows = len(gold[0]) if gold else 0
    if gold and len(pred[0]) != gold_rows:
        return False, "row_count_mismatch"
    gsig = [tuple(sorted(c)) for c in gold]
    candidates = [[p for p, col in enumerate(pred) if tuple(sorted(col)) == sig] for sig in gsig]
    if any(not c for c in candidates):
        return False, "relation_mismatch"
    target = Counter(zip(*gold, strict=True))
    for checks, perm in enumerate(_assignments(candidates, []), start=1):
        if Counter(zip(*(pred[p] for p in perm), strict=True)) == target:
            return True, None
        if checks >= MAX_PERMUTATION_CHECKS:
            return False, "permutation_limit"
    return False, "relation_mismatch"


def _assignments(candidates: list[list[int]], chosen: list[int]) -> list[list[int]]:
    if len(chosen) == len(candidates):
        return [list(chosen)]
    found: list[list[int]] = []
    for p in candidates[len(chosen)]:
        if p not in chosen:
            found.extend(_assignments(candidates, [*chosen, p]))
            if len(found) >= MAX_PERMUTATION_CHECKS:
                break
    return found


def matched_cells(gold: Sequence[Column], pred: Sequence[Column]) -> int:
    """Cells shared by one-to-one column pairs chosen greedily by multiset overlap (largest first)."""
    gcount = [Counter(c) for c in gold]
    pcount = [Counter(c) for c in pred]
    pairs = sorted(
        ((sum((g & p).values()), gi, pi) for gi, g in enumerate(gcount) for pi, p in enumerate(pcount)),
        key=lambda item: (-item[0], item[1], item[2]),
    )
    used_g: set[int] = set()
    used_p: set[int] = set()
    total = 0
    for overlap, gi, pi in pairs:
        if overlap and gi not in used_g and pi not in used_p:
            used_g.add(gi)
            used_p.add(pi)
            total += overlap
    return total


def score_answer(
    gold: AnswerTable, prediction: AnswerTable | None, *, lam: float, prediction_error: str | None = None
) -> AnswerScore:
    """Score one prediction against its gold table; a missing or unreadable prediction scores 0."""
    gcols = columns_of(gold)
    if prediction is None:
        error = prediction_error or "missing_prediction"
        empty = KddMatch(0, 0, len(gcols), 0)
        return AnswerScore(0.0, empty, len(gold.rows), 0, 0, False, error, error)
    pcols = columns_of(prediction)
    match = kdd_match(gcols, pcols)
    passed, ds_error = dataspace_check(gcols, pcols)
    return AnswerScore(
        final_score=kdd_score(match, lam),
        match=match,
        gold_rows=len(gold.rows),
        prediction_rows=len(prediction.rows),
        matched_cells=matched_cells(gcols, pcols),
        dataspace_pass=passed,
        dataspace_error=ds_error,
        prediction_error=None,
    )
