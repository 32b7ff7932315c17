"""Localisation requests: versioned templates, no secret of the judge, and steps fitted into the budget."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.atif.helpers import write
from tests.atif.localising.plant import MARK, document, record_of, steps
from tracegrade.atif import LoadOptions, load_trajectories
from tracegrade.atif.localising._prompts import (
    LOCALISE_PROMPT_VERSION,
    all_at_once_request,
    binary_search_request,
    shorten,
    step_by_step_request,
    template_hash,
)
from tracegrade.atif.localising._timeline import Timeline, timeline
from tracegrade.errors import JudgeError


def line(tmp_path: Path, n: int, filler: int = 0) -> Timeline:
    made = steps(n, plant=2)
    for step in made:
        step["message"] += " x" * filler
    write(tmp_path / "r.json", document(made))
    return timeline(load_trajectories([tmp_path / "r.json"], LoadOptions()).roots[0])


def test_each_question_has_its_own_template_hash_and_the_version() -> None:
    hashes = {template_hash(q) for q in ("localise_all", "localise_step", "localise_half")}
    assert len(hashes) == 3 and LOCALISE_PROMPT_VERSION == "atif-localise-v2"


def test_all_at_once_shows_every_step_and_the_reference_only_when_given(tmp_path: Path) -> None:
    tl = line(tmp_path, 5)
    request = all_at_once_request("the task", None, tl.steps, tl.agents, 65536)
    record = record_of(request.messages[-1]["content"])
    assert [s["ref"] for s in record["steps"]] == ["T0.1", "T0.2", "T0.3", "T0.4", "T0.5"]
    assert "reference_answer" not in record and "step_id" not in record["steps"][0]
    assert request.response_schema["properties"]["step"]["enum"] == [s.ref for s in tl.steps]
    shown = all_at_once_request("the task", "42", tl.steps, tl.agents, 65536)
    assert record_of(shown.messages[-1]["content"])["reference_answer"] == "42"
    with pytest.raises(JudgeError, match=r"needs \d+ bytes"):
        all_at_once_request("the task", None, tl.steps, tl.agents, 1024)


def test_step_by_step_keeps_the_newest_earlier_steps_that_fit(tmp_path: Path) -> None:
    tl = line(tmp_path, 30, filler=100)
    request, omitted = step_by_step_request("t", None, tl.steps[:29], tl.steps[29], 8192)
    record = record_of(request.messages[-1]["content"])
    assert omitted > 0 and record["earlier_omitted"] == omitted and len(request.canonical) <= 8192
    assert record["earlier_steps"][-1]["ref"] == "T0.29" and len(record["earlier_steps"]) == 29 - omitted


def test_binary_search_shortens_views_only_when_needed_and_keeps_their_start(tmp_path: Path) -> None:
    tl = line(tmp_path, 16, filler=300)
    _, shortened = binary_search_request("t", None, tl.steps[:8], tl.steps[8:], 0, 1 << 20)
    assert shortened == 0
    small, shortened = binary_search_request("t", None, tl.steps[:8], tl.steps[8:], 0, 8192)
    record = record_of(small.messages[-1]["content"])
    assert shortened == 16 and len(small.canonical) <= 8192 and record["first_half"][0]["shortened"] is True
    assert MARK in record["first_half"][1]["excerpt"]  # the start of each step survives
    with pytest.raises(JudgeError, match="even shortened"):
        shorten([{"ref": "T0.1", "agent": "a", "message": "x" * 1000}] * 10, 2000)


def test_step_by_step_questions_of_a_tree_share_all_but_their_newest_step(tmp_path: Path) -> None:
    tl = line(tmp_path, 8)
    texts = [step_by_step_request("the task", None, tl.steps[:k], tl.steps[k], 65536)[0].messages[-1]["content"]
             for k in range(1, 8)]
    for earlier, later in itertools.pairwise(texts):
        shared = earlier[: earlier.index(',"current_step":')].removesuffix("]")
        assert later.startswith(shared)  # the task, then every earlier step in order, before what changes
        assert len(shared) > 0.5 * len(earlier)
