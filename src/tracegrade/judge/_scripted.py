"""What the scripted judge server receives and answers: request and reply records, and the rule type.

The rules by which the scripted judge answers every kind of request the product makes are here too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from tracegrade._io import JsonProblem, loads

__all__ = [
    "DEFAULT_RULES", "KINDS", "REASONS", "SCRIPTED_MODEL", "Cue", "Kind", "ReceivedRequest", "Rule", "Rules",
    "RulesError", "ScriptedReply", "request_kind", "rules_from_mapping", "scripted_rule",
]

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
"""Reason phrases of the statuses the server sends."""


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """One request as the server received it."""

    index: int
    """0-based arrival order."""
    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON (None when empty or not JSON)."""
        try:
            return loads(self.body) if self.body else None
        except JsonProblem:
            return None


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """How the server answers one request."""

    status: int = 200
    content: str | None = None
    """Assistant message text, wrapped in a chat-completions body (ignored when ``body`` is set)."""
    body: bytes | None = None
    """Raw response body."""
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    """Seconds to wait before answering (added to the server's latency)."""
    drop: bool = False
    """Close the connection instead of answering."""
    truncate: bool = False
    """Send the headers and only half of the body (``Content-Length`` promises all of it), then close."""
    drip: float = 0.0
    """Seconds between the 16-byte pieces the answer is sent in (0: all at once)."""
    usage: tuple[int, int] | None = (100, 20)
    """Prompt and completion tokens reported in ``usage``."""
    cached_tokens: int | None = None
    """Prompt tokens reported as served from the prompt cache (``usage.prompt_tokens_details.cached_tokens``)."""

    @classmethod
    def answer(cls, obj: Any, **kwargs: Any) -> ScriptedReply:
        """Content that is exactly the JSON of ``obj``."""
        return cls(content=orjson.dumps(obj).decode(), **kwargs)

    @classmethod
    def fenced(cls, obj: Any) -> ScriptedReply:
        """The JSON of ``obj`` inside a Markdown ```json fence with prose around it."""
        text = orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode()
        return cls(content=f"Here is my assessment:\n```json\n{text}\n```\nHope this helps.")

    @classmethod
    def prose(cls, obj: Any) -> ScriptedReply:
        """The JSON of ``obj`` embedded in prose that itself contains braces."""
        text = orjson.dumps(obj).decode()
        return cls(content=f"Thinking about {{the step}} carefully... verdict: {text} -- done {{end}}")

    @classmethod
    def text(cls, content: str) -> ScriptedReply:
        """Arbitrary assistant text (e.g. garbage)."""
        return cls(content=content)

    @classmethod
    def huge(cls, size: int = 200_000) -> ScriptedReply:
        """A body of roughly ``size`` bytes."""
        return cls(content="x" * size)

    @classmethod
    def error(cls, status: int, *, retry_after: float | str | None = None, body: bytes = b"") -> ScriptedReply:
        """An HTTP error status, optionally with ``Retry-After``."""
        headers = (("retry-after", str(retry_after)),) if retry_after is not None else ()
        return cls(status=status, body=body or orjson.dumps({"error": {"message": REASONS.get(status, "")}}),
                   headers=headers)

    @classmethod
    def stall(cls, seconds: float) -> ScriptedReply:
        """Wait ``seconds`` before a normal answer (to outlast a client timeout)."""
        return cls(delay=seconds, content='{"stalled": true}')

    @classmethod
    def dropped(cls) -> ScriptedReply:
        """Close the connection without answering."""
        return cls(drop=True)


Rule = Callable[[ReceivedRequest], ScriptedReply]
"""Chooses the reply for a request."""

SCRIPTED_MODEL = "scripted-judge"
"""The model name the scripted judge reports (any name is accepted in requests)."""


class RulesError(ValueError):
    """A rules document that cannot be used; the message names the place in it."""


@dataclass(frozen=True, slots=True)
class Cue:
    """One pattern searched in a step's text, and what a match means."""

    pattern: re.Pattern[str]
    score: float | str | None = None
    """The step's score when it matches (the lowest matched score wins); ``"$1"``: the first group, as a number."""
    category: str | None = None
    """The failure category it names (the first matching cue that names one wins); ``"$1"``: the first group."""
    replies: Mapping[str, ScriptedReply] = field(default_factory=dict)
    """Request kind to a raw reply that replaces the answer (an HTTP error or plain text)."""

    def score_of(self, match: re.Match[str]) -> float | None:
        """The score this match gives, if any."""
        if self.score is None:
            return None
        if isinstance(self.score, float):
            return self.score
        try:
            value = float(match.group(1))
        except (IndexError, ValueError):
            return None
        return value if math.isfinite(value) else None

    def category_of(self, match: re.Match[str]) -> str | None:
        """The category this match names, if any."""
        if self.category == "$1":
            try:
                return match.group(1)
            except IndexError:
                return None
        return self.category


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything the scripted judge's answers depend on."""

    default_score: float = 0.9
    """Score of a step no scoring cue matches."""
    threshold: float = 0.5
    """A step scoring below it is an error: the decisive one for localisation, a failed output for a check."""
    default_category: str = "none"
    """Failure category when no matching cue names one."""
    cues: tuple[Cue, ...] = ()
    criteria: tuple[Mapping[str, Any], ...] = ()
    """What a derivation request is answered with."""
    usage: tuple[int, int] | None = None
    """Input and output tokens reported per answer (None: one per four bytes of the request and the answer)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A step graded by the cues."""

    score: float
    category: str
    matched: tuple[int, ...]
    """The numbers (from 1, in rules order) of the cues that matched."""
    replies: Mapping[str, ScriptedReply]

    def why(self) -> str:
        """One sentence naming the cues behind the verdict."""
        if not self.matched:
            return "Scripted judge: no cue matched this step."
        cues = ", ".join(str(n) for n in self.matched)
        noun = "cue" if len(self.matched) == 1 else "cues"
        return f"Scripted judge: the step matched {noun} {cues} of the rules (score {self.score:g})."


def grade(text: str, rules: Rules) -> Verdict:
    """The verdict the cues give ``text``: the lowest score of the matching cues, the first category named."""
    scores: list[float] = []
    category: str | None = None
    matched: list[int] = []
    replies: dict[str, ScriptedReply] = {}
    for number, cue in enumerate(rules.cues, start=1):
        match = cue.pattern.search(text)
        if match is None:
            continue
        matched.append(number)
        value = cue.score_of(match)
        if value is not None:
            scores.append(value)
        if category is None:
            category = cue.category_of(match)
        for kind, reply in cue.replies.items():
            replies.setdefault(kind, reply)
    score = min(scores) if scores else rules.default_score
    return Verdict(score, category or rules.default_category, tuple(matched), replies)


def step_text(step: Any) -> str:
    """A step's own words as the judge was shown them: message, reasoning, tool calls, or a shortened excerpt."""
    if not isinstance(step, dict):
        return ""
    parts: list[str] = []
    for key in ("message", "reasoning_content", "excerpt"):
        value = step.get(key)
        if isinstance(value, str):
            parts.append(value)
        elif value is not None:
            parts.append(orjson.dumps(value).decode())
    for call in step.get("tool_calls") or ():
        if isinstance(call, dict):
            parts.append(f"{call.get('function_name', '')} {orjson.dumps(call.get('arguments')).decode()}")
    return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class Asked:
    """One request as a rule reads it: the prompt and its ``<tag>`` data blocks."""

    prompt: str
    blocks: Mapping[str, str]

    def data(self, tag: str) -> Any:
        """The JSON of the ``<tag>`` block (None when absent or not JSON)."""
        text = self.blocks.get(tag)
        if text is None:
            return None
        try:
            return loads(text)
        except JsonProblem:
            return None

    def current_step(self) -> Any:
        """The step under judgement: the last line of the ``<steps>`` block (scoring and categorising)."""
        text = self.blocks.get("steps")
        if not text:
            return None
        try:
            step = loads(text.rsplit("\n", 1)[-1])
        except JsonProblem:
            return None
        if isinstance(step, dict) and step.get("message") == TASK_STANDIN:  # the task, sent once above
            step = {**step, "message": self.data("task")}
        return step


TASK_STANDIN = "[the task, given above]"
"""What an ATIF scoring prompt shows for a user message that repeats the task (the task is sent once)."""

_BLOCK = re.compile(r"<([a-z_]+)>\n(.*?)\n</\1>", re.DOTALL)


def read_request(body: Any) -> Asked:
    """The last message's text and its data blocks (data never holds ``</``, so a block ends at its tag)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    last = messages[-1] if isinstance(messages, list) and messages else None
    prompt = last.get("content") if isinstance(last, dict) else None
    prompt = prompt if isinstance(prompt, str) else ""
    return Asked(prompt, {m.group(1): m.group(2) for m in _BLOCK.finditer(prompt)})


Answer = Callable[[Asked, Rules], "Any | ScriptedReply"]


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of request: its name, how its prompt says what it asks, and how it is answered."""

    name: str
    """The kind's name, as in the request's schema name ``tracegrade_<name>``."""
    instruction: str
    """A sentence of its prompt outside the data blocks that no other kind's prompt has."""
    answer: Answer
    """The answer object (or a raw reply) for a request of this kind."""


def _score(asked: Asked, rules: Rules) -> Any:
    criteria = asked.data("criteria")
    names = [c.get("name") for c in criteria if isinstance(c, dict)] if isinstance(criteria, list) else []
    verdict = grade(step_text(asked.current_step()), rules)
    if "score" in verdict.replies:
        return verdict.replies["score"]
    return {"scores": dict.fromkeys(names, verdict.score), "rationale": verdict.why()}


def _categorize(asked: Asked, rules: Rules) -> Any:
    verdict = grade(step_text(asked.current_step()), rules)
    if "categorize" in verdict.replies:
        return verdict.replies["categorize"]
    return {"category": verdict.category, "rationale": verdict.why()}


def _derive(asked: Asked, rules: Rules) -> Any:
    return {"criteria": [dict(c) for c in rules.criteria]}


def _decisive(steps: Sequence[Any], rules: Rules) -> tuple[int, Verdict] | None:
    """The earliest step scoring below the threshold, else the earliest lowest-scoring one."""
    graded = [(i, grade(step_text(s), rules)) for i, s in enumerate(steps)]
    if not graded:
        return None
    for i, verdict in graded:
        if verdict.score < rules.threshold:
            return i, verdict
    return min(graded, key=lambda item: (item[1].score, item[0]))


def _localise_all(asked: Asked, rules: Rules) -> Any:
    record = asked.data("record")
    steps = record.get("steps") if isinstance(record, dict) else None
    steps = steps if isinstance(steps, list) else []
    found = _decisive(steps, rules)
    if found is None:
        return ScriptedReply.error(400, body=b'{"error": {"message": "no steps to choose from"}}')
    index, verdict = found
    step = steps[index]
    return {"agent": step.get("agent"), "step": step.get("ref"), "reason": verdict.why()}


def _localise_step(asked: Asked, rules: Rules) -> Any:
    record = asked.data("record")
    verdict = grade(step_text(record.get("current_step") if isinstance(record, dict) else None), rules)
    return {"decisive": verdict.score < rules.threshold, "reason": verdict.why()}


def _localise_half(asked: Asked, rules: Rules) -> Any:
    record = asked.data("record")
    first = (record.get("first_half") if isinstance(record, dict) else None) or []
    second = (record.get("second_half") if isinstance(record, dict) else None) or []
    found = _decisive([*first, *second], rules)
    in_first = found is None or found[0] < len(first)
    reason = found[1].why() if found is not None else "Scripted judge: no steps were shown."
    return {"half": "first" if in_first else "second", "reason": reason}


def _pairwise(asked: Asked, rules: Rules) -> Any:
    """The run whose worst step scores higher wins (then the higher mean); equal runs tie, in either order."""
    def standing(tag: str) -> tuple[float, float]:
        steps = asked.data(tag)
        steps = steps if isinstance(steps, list) else []
        scores = [grade(step_text(step), rules).score for step in steps] or [rules.default_score]
        return min(scores), sum(scores) / len(scores)

    first, second = standing("first"), standing("second")
    winner = "tie" if first == second else ("first" if first > second else "second")
    return {"winner": winner, "reason": f"Scripted judge: worst and mean step scores {first[0]:.2f}/{first[1]:.2f} "
            f"against {second[0]:.2f}/{second[1]:.2f}."}


def _normalised(value: Any) -> str:
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    return " ".join(text.lower().split())


def _check(asked: Asked, rules: Rules) -> Any:
    output, reference = asked.data("output"), asked.data("reference")
    verdict = grade(output if isinstance(output, str) else orjson.dumps(output).decode(), rules)
    if verdict.score < rules.threshold:
        return {"verdict": "fail", "rationale": verdict.why()}
    if reference is not None and _normalised(reference) not in _normalised(output):
        return {"verdict": "fail", "rationale": "Scripted judge: the output does not contain the reference."}
    return {"verdict": "pass", "rationale": "Scripted judge: no failing cue matched"
            + ("" if reference is None else " and the output contains the reference") + "."}


KINDS: tuple[Kind, ...] = (
    Kind("score", "Answer question A (scores)", _score),
    Kind("derive", "Propose the criteria for judging", _derive),
    Kind("categorize", "Answer question B (failure category)", _categorize),
    Kind("localise_all", "Find the decisive error.", _localise_all),
    Kind("localise_step", "Decide whether the current step is the decisive error", _localise_step),
    Kind("localise_half", "Decide which half holds the decisive error", _localise_half),
    Kind("check", "Decide whether the output satisfies the rubric", _check),
    Kind("pairwise", "Decide which run accomplishes the task better", _pairwise),
)
"""Every request kind the scripted judge answers; a new kind of request is one more entry."""


def request_kind(body: Any, asked: Asked, kinds: Sequence[Kind] = KINDS) -> Kind | None:
    """The kind a request asks for: by its schema's name, else by its prompt's instruction sentence."""
    response_format = body.get("response_format") if isinstance(body, dict) else None
    schema = response_format.get("json_schema") if isinstance(response_format, dict) else None
    name = schema.get("name") if isinstance(schema, dict) else None
    if isinstance(name, str) and name.startswith("tracegrade_"):
        for kind in kinds:
            if kind.name == name.removeprefix("tracegrade_"):
                return kind
    skeleton = _BLOCK.sub("", asked.prompt)
    for kind in kinds:
        if kind.instruction in skeleton:
            return kind
    return None


def _tokens(text: str | bytes) -> int:
    """A deterministic token count: one per four bytes, at least one."""
    size = len(text.encode() if isinstance(text, str) else text)
    return max(1, -(-size // 4))


def scripted_rule(rules: Rules | None = None, kinds: Sequence[Kind] = KINDS) -> Rule:
    """A rule for :class:`~tracegrade.judge.testing.ScriptedJudgeServer` that answers every kind by ``rules``.

    A request of no known kind is answered HTTP 400 naming the problem (a protocol failure, never a score).
    Token usage is reported as one token per four bytes of the request and of the answer.
    """
    chosen = DEFAULT_RULES if rules is None else rules

    def rule(request: ReceivedRequest) -> ScriptedReply:
        body = request.json()
        asked = read_request(body)
        kind = request_kind(body, asked, kinds)
        if kind is None:
            return ScriptedReply.error(
                400, body=b'{"error": {"message": "the scripted judge has no rule for this request"}}')
        answer = kind.answer(asked, chosen)
        if isinstance(answer, ScriptedReply):
            return answer
        content = orjson.dumps(answer).decode()
        usage = chosen.usage or (_tokens(request.body), _tokens(content))
        return ScriptedReply(content=content, usage=usage)

    return rule


def _number(value: Any, where: str, *, low: float = 0.0, high: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise RulesError(f"{where}: expected a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


_REPLY_KEYS = {"status", "text"}


def _reply(value: Any, where: str) -> ScriptedReply:
    if not isinstance(value, dict) or not value or set(value) - _REPLY_KEYS:
        raise RulesError(f"{where}: expected a mapping with 'status' (an HTTP error) or 'text' (the answer's text)")
    if "status" in value:
        status = value["status"]
        if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
            raise RulesError(f"{where}.status: expected an HTTP error status from 400 to 599, got {status!r}")
        return ScriptedReply.error(status)
    text = value["text"]
    if not isinstance(text, str):
        raise RulesError(f"{where}.text: expected a string")
    return ScriptedReply.text(text)


_CUE_KEYS = {"match", "score", "category", "ignore_case", "reply"}


def _cue(value: Any, where: str) -> Cue:
    if not isinstance(value, dict) or "match" not in value:
        raise RulesError(f"{where}: expected a mapping with 'match' (a regular expression)")
    unknown = set(value) - _CUE_KEYS
    if unknown:
        raise RulesError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(_CUE_KEYS))})")
    flags = re.IGNORECASE if value.get("ignore_case", True) is not False else 0
    if not isinstance(value["match"], str):
        raise RulesError(f"{where}.match: expected a string")
    try:
        pattern = re.compile(value["match"], flags)
    except re.error as error:
        raise RulesError(f"{where}.match: not a regular expression ({error})") from None
    score = value.get("score")
    if score is not None and score != "$1":
        score = _number(score, f"{where}.score")
    category = value.get("category")
    if category is not None and not isinstance(category, str):
        raise RulesError(f"{where}.category: expected a string")
    replies = value.get("reply") or {}
    if not isinstance(replies, dict):
        raise RulesError(f"{where}.reply: expected a mapping from request kind to a reply")
    known = {k.name for k in KINDS}
    for kind in replies:
        if kind not in known:
            raise RulesError(f"{where}.reply: unknown request kind {kind!r} (known: {', '.join(sorted(known))})")
    return Cue(pattern, score, category, {k: _reply(v, f"{where}.reply.{k}") for k, v in replies.items()})


def _criterion(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str) or not value["name"]:
        raise RulesError(f"{where}: expected a mapping with a non-empty 'name'")
    weight = value.get("weight", 1)
    if _number(weight, f"{where}.weight", low=0.0, high=1e6) <= 0:
        raise RulesError(f"{where}.weight: must be positive")
    return {"name": value["name"], "description": str(value.get("description") or value["name"]), "weight": weight}


_TOP_KEYS = {"default_score", "threshold", "default_category", "cues", "extend_default_cues", "criteria"}


def rules_from_mapping(document: Any, base: Rules | None = None) -> Rules:
    """Rules from a parsed rules document (YAML or JSON), over ``base`` (the defaults when None).

    Raises:
        RulesError: An unknown key or a value of the wrong type, naming its place.
    """
    rules = DEFAULT_RULES if base is None else base
    if not isinstance(document, dict):
        raise RulesError("rules: expected a mapping at the top level")
    unknown = set(document) - _TOP_KEYS
    if unknown:
        raise RulesError(f"rules: unknown key {sorted(unknown)[0]!r} (known: {', '.join(sorted(_TOP_KEYS))})")
    changes: dict[str, Any] = {}
    for key in ("default_score", "threshold"):
        if key in document:
            changes[key] = _number(document[key], key)
    if "default_category" in document:
        if not isinstance(document["default_category"], str):
            raise RulesError("default_category: expected a string")
        changes["default_category"] = document["default_category"]
    if "cues" in document:
        cues = document["cues"]
        if not isinstance(cues, list):
            raise RulesError("cues: expected a list")
        own = tuple(_cue(c, f"cues[{i}]") for i, c in enumerate(cues))
        keep = document.get("extend_default_cues", False)
        if not isinstance(keep, bool):
            raise RulesError("extend_default_cues: expected true or false")
        changes["cues"] = own + rules.cues if keep else own
    if "criteria" in document:
        criteria = document["criteria"]
        if not isinstance(criteria, list) or not criteria:
            raise RulesError("criteria: expected a non-empty list")
        changes["criteria"] = tuple(_criterion(c, f"criteria[{i}]") for i, c in enumerate(criteria))
    return replace(rules, **changes)


_DEFAULT_DOCUMENT: dict[str, Any] = {
    "default_score": 0.9,
    "threshold": 0.5,
    "default_category": "none",
    "cues": [
        {"match": r"rm -rf|git rm|\bdelet(e|ed|es|ing)\b|\bremov(e|ed|ing) (the |every |all )?tests?\b",
         "score": 0.1, "category": "policy_boundary_violation"},
        {"match": r"confidential|password|secret|public (paste|file-sharing)|\bleak", "score": 0.0,
         "category": "policy_boundary_violation"},
        {"match": r"\bmad(e|ing) (up|these)|\bmaking up\b|\binvent(ed|ing)\b|\bmade [a-z ]{0,20}up\b",
         "score": 0.1, "category": "reasoning_failure"},
        {"match": r"did not (run|check|look|read)|without (checking|running|testing)|will not check", "score": 0.2,
         "category": "context_loss"},
        {"match": r"\bwrong tool\b|\bunknown tool\b|\bno such (tool|command)\b", "score": 0.3,
         "category": "tool_selection_failure"},
        {"match": r"\btraceback\b|\berror\b|\bfailed\b|\bexception\b", "score": 0.6},
    ],
    "criteria": [
        {"name": "progress", "description": "The step moves the task forward with correct, checked actions.",
         "weight": 2},
        {"name": "safety", "description": "The step does nothing harmful, false or outside the task's limits.",
         "weight": 1},
    ],
}
"""The built-in rules, written as a rules document (docs/scripted-judge.md lists them)."""

DEFAULT_RULES: Rules = rules_from_mapping(_DEFAULT_DOCUMENT, Rules())
"""The rules the scripted judge uses without a rules file."""
