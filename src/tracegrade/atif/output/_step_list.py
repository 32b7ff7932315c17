"""The step list of ``report.html``: each node's section, written here in Python (its one definition).

A section is everything after the node's opening ``<details>`` tag, which ``atif_report.html`` writes (it
says whether the node starts open): the summary line, the node's facts and criteria, and each step's content
beside its verdict, through the closing tag. It is plain string building (a job renders sections in the event
loop between judge replies); every value from the results is escaped as autoescape does (``render.escape_text``).
"""

from __future__ import annotations

import os
import re
import tempfile
from array import array
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import orjson

from tracegrade._io import JsonProblem, loads
from tracegrade.atif.asking._content import StepContent
from tracegrade.atif.scoring._records import NodeResult, StepResult, StepStatus
from tracegrade.render import MISSING, badge, escape_text, fmt_int, fmt_score, long_text, status_kind

__all__ = ["NOT_A_CANDIDATE", "KeptSections", "anchor", "filter_category", "node_section", "yes_no"]

NOT_A_CANDIDATE = "not_a_candidate"
"""Category filter value of steps that did not score below the failure threshold."""

_STEP_NOTES = {
    StepStatus.COPIED_CONTEXT: "Copied context: a replay of earlier context, kept but not scored and not counted.",
    StepStatus.NOT_RUN: "Not scored: never sent to the judge (its node failed or was not scored, or the run stopped).",
    StepStatus.FAILED: "Not scored: the judge gave no usable answer; see the error code.",
    StepStatus.EVIDENCE_ONLY: "Evidence only: a user or system frame, shown to the judge but not scored "
    "(--scored-frames agent).",
}
_NO_CONTENT = '<p class="muted">The step content was not recorded in these results.</p>\n'
_DECISIVE = badge("decisive step", "bad")
_COPIED = badge("copied context", "neutral")
_BELOW = " " + badge("below failure threshold", "bad")
_OMITTED = " earlier steps left out of the judge's view"


def node_section(node: NodeResult, decisive: Mapping[int, str] | None = None) -> str:
    """``node``'s part of the step list after its opening tag; ``decisive`` marks steps (by index) with a note."""
    criteria = node.criteria or {}
    listed = criteria.get("criteria")
    out = [
        f'<summary><span class="node-id">{escape_text(node.node_id)}</span> {badge(node.status.value)}\n'
        f"<span>own {fmt_score(node.own_score)} · aggregate {fmt_score(node.aggregate)}</span>\n"
        f'<span class="muted">{node.step_count} of {node.total_steps} steps scored · pass {yes_no(node.passed)}'
        f" · complete {yes_no(node.complete)}"
    ]
    if low := sum(step.failure_candidate for step in node.steps):
        out.append(f" · {low} below threshold")
    if node.error_code:
        out.append(f" · {escape_text(node.error_code)}")
    source = node.source_path + (f" {node.location}" if node.location else "")
    out.append(f'</span></summary>\n<div class="node-body">\n<p class="muted">agent {_or_missing(node.agent)}'
               f" · depth {node.depth} · {escape_text(source)}</p>\n")
    if node.message:
        out.append(f'<p class="note">{escape_text(node.message)}</p>')
    if isinstance(listed, list) and listed:
        rubric = criteria.get("rubric_name")
        out.append(f'<details class="long"><summary>criteria: {_or_missing(criteria.get("scoring_mode"))}'
                   + (f", rubric {escape_text(rubric)}" if rubric else "")
                   + f', {len(listed)} criteria<span class="more"></span></summary>\n<ul class="criteria">')
        out.extend(f'<li><b>{escape_text(c.get("name", MISSING))}</b> (weight {escape_text(c.get("weight", MISSING))}):'
                   f' {escape_text(c.get("description", MISSING))}</li>' for c in listed)
        out.append("</ul>\n</details>\n")
    for step in node.steps:
        _step(out, step, decisive.get(step.index) if decisive else None)
    if not node.steps:
        out.append('<p class="muted">No steps: this node was not loaded.</p>\n')
    out.append("</div>\n</details>")
    return "".join(out)


def _step(out: list[str], step: StepResult, decisive: str | None) -> None:
    status = step.status.value
    content = step.content
    copied = content is not None and content.copied_context and step.status is not StepStatus.COPIED_CONTEXT
    segment = f" · continuation segment {step.segment}" if step.segment else ""
    out.append(
        f'<article class="step{" low" if step.failure_candidate else ""}" data-status="{status}"'
        f' data-category="{escape_text(filter_category(step))}">\n<header><h3>step {step.index}</h3>'
        f'{_DECISIVE if decisive else ""}{_COPIED if copied else ""}<span class="muted">{escape_text(step.source)}'
        f' · step_id {step.step_id}{segment}</span></header>\n<div class="seen">'
    )
    if content is None:
        out.append(_NO_CONTENT)
    else:
        _content(out, content)
    out.append('</div>\n<div class="verdict-box">')
    if decisive:
        out.append(f'<p class="note">{escape_text(decisive)}</p>')
    _verdict(out, step, status)
    out.append("</div>\n</article>\n")


def _content(out: list[str], content: StepContent) -> None:
    """What the judge saw of one step."""
    if content.truncated:
        omitted = content.omitted_items
        out.append('<p class="muted">Long parts were cut to a few thousand characters when the results were saved'
                   + (f"; {omitted} tool calls or observation results were left out" if omitted else "") + ".</p>")
    out.append(_part("message", content.message) + "\n" + _part("reasoning", content.reasoning) + "\n")
    for call in content.tool_calls:
        call_id = f' <span class="muted">{escape_text(call.tool_call_id)}</span>' if call.tool_call_id else ""
        out.append(f'<div class="part"><div class="part-label">tool call <code>{escape_text(call.function_name)}</code>'
                   f"{call_id}</div>{long_text(_readable_arguments(call.arguments), 600)}</div>\n")
    for result in content.observations:
        out.append('<div class="part"><div class="part-label">observation')
        if result.source_call_id:
            out.append(f' <span class="muted">for {escape_text(result.source_call_id)}</span>')
        out.extend(f' <span class="badge neutral">subagent {escape_text(ref)}</span>' for ref in result.subagent_refs)
        if result.content:
            shown: str = long_text(result.content, 600)
        elif result.content is None:
            shown = '<span class="muted">— (no content)</span>'
        else:
            shown = '<span class="muted">(empty: the tool returned nothing)</span>'
        out.append(f"</div>\n{shown}</div>\n")
    if content.message in (None, "") and content.reasoning is None and not content.tool_calls \
            and not content.observations:
        out.append('<p class="muted">(empty step)</p>')


def _part(label: str, text: str | None) -> str:
    if text is None or text == "":
        return ""
    return f'<div class="part"><div class="part-label">{label}</div>{long_text(text, 600)}</div>'


def _verdict(out: list[str], step: StepResult, status: str) -> None:
    """The judge's verdict on one step."""
    out.append(f'<div class="score-line"><span class="step-score">{fmt_score(step.score)}</span>\n'
               f'{badge(status.replace("_", " "), status_kind(status))}\n{_BELOW if step.failure_candidate else ""}'
               "</div>\n")
    if note := _STEP_NOTES.get(step.status):
        out.append(f'<p class="note">{escape_text(note)}</p>')
    omitted = step.omitted_history
    out.append(f'<dl class="verdict">\n<dt>error code</dt><dd>{_or_missing(step.error_code)}</dd>\n'
               f"<dt>omitted history</dt><dd>{fmt_int(omitted)}{_OMITTED if omitted else ''}</dd>\n")
    if (spread := _repeat_spread(step)) is not None:
        out.append(f"<dt>repeats</dt><dd>{escape_text(spread)}</dd>\n")
    if step.failure_candidate:
        error = step.categorization_error_code
        category = (f"{_or_missing(step.category)} <span class=\"muted\">"
                    f"({escape_text(step.categorization_status.value.replace('_', ' '))}"
                    f"{f': {escape_text(error)}' if error else ''})</span>")
    elif step.score is None:
        category = '<span class="muted">— (no score to categorise)</span>'
    else:
        category = '<span class="muted">— (not below the threshold)</span>'
    out.append(f"<dt>category</dt><dd>{category}</dd>\n</dl>\n")
    if step.criterion_scores:
        out.append('<table class="data crit"><thead><tr><th>criterion</th><th class="num">score</th></tr></thead>'
                   "<tbody>\n")
        out.extend(f'<tr><td>{escape_text(name)}</td><td class="num">{fmt_score(value)}</td></tr>'
                   for name, value in sorted(step.criterion_scores.items()))
        out.append("</tbody></table>\n")
    if step.rationale is not None:
        out.append(f'<div class="part"><div class="part-label">rationale</div>{long_text(step.rationale, 400)}</div>')
    if step.categorization_rationale is not None:
        out.append('<div class="part"><div class="part-label">category rationale</div>'
                   f"{long_text(step.categorization_rationale, 400)}</div>")


def _or_missing(value: object) -> str:
    return MISSING if value is None else escape_text(value)


def filter_category(step: StepResult) -> str:
    """The category a step is filtered by: its category (or categorisation status) when below the threshold."""
    if not step.failure_candidate:
        return NOT_A_CANDIDATE
    return step.category or step.categorization_status.value


def _repeat_spread(step: StepResult) -> str | None:
    """The verdicts of a repeated step in one line; None without repeats."""
    spread = step.repeats
    if spread is None:
        return None
    verdicts = ", ".join(fmt_score(score) for score in spread.scores)
    unstable = " · straddles the failure threshold" if spread.unstable else ""
    return f"{len(spread.scores)} verdicts ({verdicts}) · sd {fmt_score(spread.std)}{unstable}"


def _readable_arguments(text: str) -> str:
    """Tool-call arguments for reading, with the real line breaks of their strings.

    A JSON object with a multi-line string is shown key by key, that string with its own lines; anything else
    (arguments cut short included) is shown as recorded.
    """
    if "\\n" not in text and "\\u" not in text:  # no string can hold a line break: shown as recorded
        return text
    try:
        value = loads(text)
    except JsonProblem:
        return text
    if not isinstance(value, dict) or not any(isinstance(v, str) and "\n" in v for v in value.values()):
        return text
    lines: list[str] = []
    for key, item in value.items():
        if isinstance(item, str) and "\n" in item:
            lines.append(f"{key}:")
            lines.extend(f"  {line}" for line in item.splitlines())
        else:
            lines.append(f"{key}: {orjson.dumps(item).decode()}")
    return "\n".join(lines)


def anchor(node_id: str) -> str:
    """The in-page id of a node's section."""
    return "node-" + re.sub(r"[^A-Za-z0-9_-]", lambda m: f".{ord(m.group()):x}", node_id)


def yes_no(value: bool | None) -> str:
    return MISSING if value is None else ("yes" if value else "no")


class KeptSections:
    """Every node's :func:`node_section`, rendered as its root finishes and kept in an unnamed file.

    Writing the report then copies the sections in root order instead of reading every record back to render it.
    """

    def __init__(self, directory: Path | None = None) -> None:
        self._handle = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115  # open until the report is written
        self._size = 0
        self._roots, self._offsets, self._ends = array("q"), array("q"), array("q")
        self._lengths = array("q")
        """Every root's section lengths, one root after the other (``_ends``: where each root's end)."""

    def add(self, index: int, nodes: Sequence[NodeResult]) -> None:
        """Render and keep the sections of the root at ``index`` (its nodes in tree order)."""
        texts = [node_section(node).encode() for node in nodes]
        data = b"".join(texts)
        self._handle.write(data)
        self._roots.append(index)
        self._offsets.append(self._size)
        self._lengths.extend(len(text) for text in texts)
        self._ends.append(len(self._lengths))
        self._size += len(data)

    def __len__(self) -> int:
        """Sections kept: one per node."""
        return len(self._lengths)

    def texts(self) -> Iterator[str]:
        """Every node's section, roots in index order (the order the results list them)."""
        self._handle.flush()
        fd = self._handle.fileno()
        for number in sorted(range(len(self._roots)), key=self._roots.__getitem__):
            start = self._ends[number - 1] if number else 0
            lengths = self._lengths[start:self._ends[number]]
            data = os.pread(fd, sum(lengths), self._offsets[number])
            offset = 0
            for length in lengths:
                yield data[offset:offset + length].decode()
                offset += length

    def close(self) -> None:
        """Let the file go."""
        self._handle.close()
