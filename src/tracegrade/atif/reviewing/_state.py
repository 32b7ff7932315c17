"""The state behind the review page: the run, the queue, the labels file and one reviewer's session.

Every answer, skip and undo goes through here; answers and undos are checked against the labels file and
appended to it (:mod:`~tracegrade.atif.reviewing._append`), skips stay in the session.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracegrade.atif.agreement._labels import LABEL_CATEGORIES, Label, of_reviewer
from tracegrade.atif.reviewing._append import Conflict, LabelsFile, retraction_of
from tracegrade.atif.reviewing._figures import review_figures
from tracegrade.atif.reviewing._items import RunIndex, answer_view, item_view, judge_view
from tracegrade.atif.reviewing._queue import ReviewOrder, order_description, review_queue
from tracegrade.atif.reviewing._run import ReviewedRun
from tracegrade.atif.reviewing._session import Key, ReviewSession, answered_steps

__all__ = ["MAX_NOTE_CHARS", "ReviewSettings", "ReviewState"]

MAX_NOTE_CHARS = 4000
"""Longest note a reviewer may attach to an answer."""


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """What ``tracegrade review`` was asked for."""

    labels: Path
    reviewer: str
    order: ReviewOrder = ReviewOrder.LOWEST
    seed: int = 0
    blind: bool = False
    resamples: int = 2000
    level: float = 0.95


class ReviewState:
    """The run, its queue, the labels file and this reviewer's session."""

    def __init__(self, run: ReviewedRun, settings: ReviewSettings) -> None:
        self.run, self.settings = run, settings
        self.results = run.results
        self.threshold = run.results.parameters.failure_threshold
        self.index = RunIndex(run.results.nodes)
        self.queue = review_queue(run.results.nodes, settings.order, failure_threshold=self.threshold,
                                  seed=settings.seed)
        self.by_key = {step.key: step for step in self.queue}
        self.session = ReviewSession(self.queue)
        self.labels = LabelsFile(settings.labels)
        self._figures: tuple[tuple[Label, ...], dict[str, Any]] | None = None

    # -- state -------------------------------------------------------------------------------------------------

    def mine(self, labels: tuple[Label, ...]) -> dict[Key, Label]:
        """The standing step labels of the server's reviewer, by step."""
        return answered_steps(self.results, of_reviewer(labels, self.settings.reviewer))

    def state(self, labels: tuple[Label, ...]) -> dict[str, Any]:
        """Everything the page shows, for the labels read just now."""
        answered = self.mine(labels)
        current = self.session.current(answered)
        item = None
        if current is not None:
            found = self.index.step(*current.key)
            assert found is not None
            blind = self.settings.blind  # the reason a step is contested would tell the verdict too
            item = item_view(self.index, *found, reveal=not blind, failure_threshold=self.threshold,
                             position=self.session.positions[current.key],
                             contested=None if blind else current.contested)
        in_queue = [key for key in answered if key in self.by_key]
        return {
            "reviewer": self.settings.reviewer,
            "blind": self.settings.blind,
            "order": {"name": self.settings.order.value, "seed": self.settings.seed,
                      "description": order_description(self.settings.order, self.settings.seed)},
            "run": {"job_id": self.results.job_id, "created_at": self.results.created_at,
                    "folder": str(self.run.folder),
                    "judge": self.results.parameters.atif_judge, "failure_threshold": self.threshold,
                    "steps": len(self.queue),
                    "report": not self.settings.blind and "report.html" in self.run.manifest.get("files", {})},
            "labels_file": str(self.settings.labels),
            "progress": {"total": len(self.queue), "answered": len(in_queue),
                         "skipped": len([k for k in self.session.skipped if k not in answered])},
            "item": item,
            "draft": self.session.draft if current is not None and current.key == self.session.focus else None,
            "taxonomy": list(LABEL_CATEGORIES),
        }

    def figures(self, labels: tuple[Label, ...]) -> dict[str, Any]:
        """The agreement figures for ``labels`` (computed again only when the labels changed)."""
        cached = self._figures
        if cached is not None and cached[0] == labels:
            return cached[1]
        figures = review_figures(self.results, labels, self.settings.reviewer, labels_file=str(self.settings.labels),
                                 resamples=self.settings.resamples, level=self.settings.level)
        self._figures = (labels, figures)
        return figures

    # -- answers -----------------------------------------------------------------------------------------------

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """Append the reviewer's answer for one step; the judge's verdict on it comes back with the new state.

        Raises:
            ValueError: the answer is malformed.
            Conflict: the step is answered already, or another step of its trajectory is the decisive one.
        """
        key = self._key(body)
        values = _verdict(body)
        reviewer = self.settings.reviewer

        def check(standing: tuple[Label, ...]) -> dict[str, Any]:
            mine = self.mine(standing)
            if key in mine:
                raise Conflict("this step already has your answer (undo it to answer again)")
            if values.get("decisive"):
                other = next((k for k, label in mine.items() if k[0] == key[0] and label.decisive), None)
                if other is not None:
                    raise Conflict(f"step {other[1]} of this trajectory is already your decisive step (undo it first)")
            extra: dict[str, Any] = {"tool": "tracegrade review", "order": self.settings.order.value,
                                     "answered_at": datetime.now(UTC).replace(microsecond=0).isoformat()}
            if self.settings.order is ReviewOrder.RANDOM:
                extra["seed"] = self.settings.seed
            return {"node_id": key[0], "step": key[1], "reviewer": reviewer, **values, "extra": extra}

        written = self.labels.append(check)
        self.session.answered_one()
        found = self.index.step(*key)
        assert found is not None
        return {"saved": written.line, "revealed": judge_view(*found, self.threshold), "key": list(key)}

    def skip(self, body: dict[str, Any]) -> dict[str, Any]:
        """Move a step to the back of the queue.

        Raises:
            ValueError: not a step of the queue.
        """
        key = self._key(body)
        self.session.skip(key)
        return {"skipped": list(key)}

    def undo(self) -> dict[str, Any]:
        """Take back the latest skip of this session, else withdraw this reviewer's latest standing label.

        Raises:
            Conflict: nothing to undo.
        """
        skipped = self.session.unskip()
        if skipped is not None:
            return {"undone": "skip", "key": list(skipped)}
        withdrawn: list[Label] = []

        def check(standing: tuple[Label, ...]) -> dict[str, Any]:
            mine = of_reviewer(standing, self.settings.reviewer)
            if not mine:
                raise Conflict("nothing to undo: you have no answers in the labels file")
            latest = max(mine, key=lambda label: label.line)
            withdrawn.append(latest)
            return retraction_of(latest)

        self.labels.append(check)
        label = withdrawn[0]
        keys = [k for k, v in answered_steps(self.results, [label]).items() if v is label]
        key = keys[0] if keys else None
        self.session.returned_to(key, answer_view(label))
        return {"undone": "answer", "key": None if key is None else list(key), "line": label.line}

    def _key(self, body: dict[str, Any]) -> Key:
        node_id, step = body.get("node_id"), body.get("step")
        if not isinstance(node_id, str) or type(step) is not int or (node_id, step) not in self.by_key:
            raise ValueError("node_id and step must name a step of the review queue")
        return (node_id, step)


def _verdict(body: dict[str, Any]) -> dict[str, Any]:
    """The verdict fields of an answer, checked (at least one of failed, score, category, decisive)."""
    allowed = {"node_id", "step", "failed", "score", "category", "decisive", "note"}
    if unknown := sorted(set(body) - allowed):
        raise ValueError(f"unknown fields: {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name in ("failed", "decisive"):
        if body.get(name) is not None:
            if not isinstance(body[name], bool):
                raise ValueError(f"{name} must be true or false")
            values[name] = body[name]
    score = body.get("score")
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score) \
                or not 0 <= score <= 1:
            raise ValueError("score must be a number from 0 to 1")
        values["score"] = float(score)
    category = body.get("category")
    if category is not None:
        if category not in LABEL_CATEGORIES:
            raise ValueError(f"category must be one of {', '.join(LABEL_CATEGORIES)}")
        values["category"] = category
    if not values:
        raise ValueError("give at least one of pass/fail, a score, a category or the decisive mark")
    note = body.get("note")
    if note is not None and note != "":
        if not isinstance(note, str) or len(note) > MAX_NOTE_CHARS:
            raise ValueError(f"note must be text of at most {MAX_NOTE_CHARS} characters")
        values["note"] = note
    return values
