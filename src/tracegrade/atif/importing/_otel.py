"""OpenTelemetry traces → ATIF trajectory trees (``tracegrade import otel``); the mapping is in docs/importers.md.

One trace becomes one root trajectory; an agent span inside another agent's span (or inside a tool span, the
agent-as-tool pattern) becomes an embedded sub-agent trajectory referenced from the step that delegated to it.
Inside a trajectory, each logical model call is an agent step; tool spans become the observations of the calls
that asked for them; input messages not seen before become user and system steps. Every step keeps the trace
and span it came from in ``extra.otel`` so verdicts can be sent back to those spans.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tracegrade.atif.importing._calls import (
    AgentInfo,
    InputMemo,
    ModelCall,
    agent_info,
    count_unread,
    read_model_call,
)
from tracegrade.atif.importing._envelopes import TraceFile, read_trace_file
from tracegrade.atif.importing._genai import ToolRun, span_role, tool_run
from tracegrade.atif.importing._messages import Message, RequestedToolCall
from tracegrade.atif.importing._output import SCHEMA_VERSION, ImportWriter, file_report, input_files, slug, unique
from tracegrade.atif.importing._spans import Span, Tally, iso_time
from tracegrade.errors import InputError

if TYPE_CHECKING:
    from tracegrade.atif.importing._output import ImportResult

__all__ = ["build_trace", "import_otel", "trace_documents"]

_SUFFIXES = (".json", ".jsonl", ".ndjson")
_MAX_AGENT_DEPTH = 64
_NO_OUTPUT = "[the trace records no output for this model call]"
TallyOf = Callable[[Span], Tally]
Emit = Callable[[str, str, dict[str, Any]], None]


def import_otel(paths: Sequence[Path], out_dir: Path, *, task_attribute: str | None = None) -> ImportResult:
    """Import every trace of ``paths`` into ``out_dir/trajectories/`` and ``out_dir/import_report.json``.

    ``task_attribute`` names a span attribute holding the task, read (first span in time order) for a trace
    whose agent input and user messages hold none; ``import_report.json`` says which trajectories have no task.

    Raises:
        InputError: a file is missing or malformed (naming the file and the place), or no input holds a
            GenAI agent, model or tool span.
        OutputError: ``out_dir`` cannot be written.
    """
    with ImportWriter(out_dir, validate=False) as writer:
        files = [read_trace_file(path, found_in_folder=in_folder) for path, in_folder in input_files(paths, _SUFFIXES)]
        records = [len(f.spans) for f in files]
        roots_of = trace_documents(files, writer.add, task_attribute=task_attribute)
        if not writer.reports:
            raise InputError(f"no GenAI agent, model or tool spans in {', '.join(str(p) for p in paths)}")
        reports = [file_report(f.path, sorted(f.formats), count, roots_of.get(str(f.path), []), f.tally)
                   for f, count in zip(files, records, strict=True)]
        return writer.finish("otel", reports)


def trace_documents(files: list[TraceFile], emit: Emit, *, task_attribute: str | None = None) -> dict[str, list[str]]:
    """Build every trace of ``files``, handing each to ``emit(name, source, document)``; the roots of each file.

    The files' spans are handed over: each trace's spans are let go once its trajectory is built.
    """
    tallies = {str(f.path): f.tally for f in files}
    traces = _traces(files)
    for found in files:
        found.spans, found.logs = [], []
    roots_of: dict[str, list[str]] = defaultdict(list)
    taken: set[str] = set()
    stems = {source: Path(source).stem for source in tallies}
    for key in list(traces):
        spans = traces.pop(key)
        document = build_trace(spans, lambda span: tallies[span.source], task_attribute=task_attribute)
        if document is None:
            tallies[spans[0].source].add("trace without GenAI agent, model or tool spans")
            continue
        first = spans[0]
        stem = stems[first.source]
        name = unique(slug(f"{stem}-{first.trace_id}" if first.trace_id else stem), taken)
        document["trajectory_id"] = name
        emit(name, first.source, document)
        for source in dict.fromkeys(span.source for span in spans):
            roots_of[source].append(name)
    return roots_of


def _traces(files: list[TraceFile]) -> dict[str, list[Span]]:
    """Spans grouped by trace over all files (a bare attribute map is a trace of its own), logs joined."""
    traces: dict[str, list[Span]] = defaultdict(list)
    order = 0
    for found in files:
        source = str(found.path)
        for span in found.spans:
            order += 1
            span.order = order
            span.source = source
            traces[span.trace_id or f"{source}#{span.span_id}"].append(span)
    if not any(found.logs for found in files):
        return traces
    by_span = {(s.trace_id, s.span_id): s for spans in traces.values() for s in spans if s.trace_id}
    for found in files:
        for log in found.logs:
            owner = by_span.get((log.trace_id or "", log.span_id or ""))
            if owner is None:
                found.tally.add("log record without its span")
            else:
                owner.events.append(log.event)
    return traces


def build_trace(spans: list[Span], tally_of: TallyOf, *, task_attribute: str | None = None) -> dict[str, Any] | None:
    """One trace as an ATIF trajectory tree (a JSON-ready dict), or None when it holds no GenAI span.

    Without a task from the agent's input or a user message, ``task_attribute`` (a span attribute) gives it.
    """
    tree = _Tree(spans, tally_of)
    groups = tree.groups()
    top = groups[None]
    agents = [m for m in top.members if m.kind == "agent"]
    root_key = agents[0].span.span_id if len(agents) == 1 and len(top.members) == 1 else None
    builder = _Builder(groups, tally_of, tree.session_id())
    document = builder.trajectory(root_key, tree.tops[0] if tree.tops else None, 0)
    if document is None:
        return None
    task = builder.task(root_key) or _attribute_task(spans, task_attribute)
    if root_key is None and _only_delegates(document):
        document = document["subagent_trajectories"][0]  # the trace holds one agent, under non-GenAI spans
    if task:
        document.setdefault("extra", {})["task_instruction"] = task
    return document


@dataclass(slots=True)
class _Member:
    """Something that happened inside one trajectory: a model call (its spans), a tool run or a sub-agent."""

    kind: str
    span: Span
    chain: list[Span] = field(default_factory=list)
    via_tool: Span | None = None


@dataclass(slots=True)
class _Group:
    agent: Span | None
    members: list[_Member] = field(default_factory=list)


class _Tree:
    """The span tree of one trace: parents resolved, orphans put under the root, roles read."""

    def __init__(self, spans: list[Span], tally_of: TallyOf) -> None:
        self.tally_of = tally_of
        self.spans = sorted(spans, key=lambda s: (s.start_ns or 0, s.order))
        self.by_id: dict[str, Span] = {}
        for span in self.spans:
            if span.span_id in self.by_id:
                tally_of(span).add("span with a duplicate span id")
            else:
                self.by_id[span.span_id] = span
        self.children: defaultdict[str, list[Span]] = defaultdict(list)
        self.tops: list[Span] = []
        self._link()

    def _link(self) -> None:
        orphans: list[Span] = []
        for span in self.by_id.values():
            parent = span.parent_id
            if parent is not None and parent in self.by_id and parent != span.span_id:
                self.children[parent].append(span)
            else:
                (orphans if parent is not None else self.tops).append(span)
        if len(self.tops) == 1 and orphans:
            root = self.tops[0]
            self.children[root.span_id] = sorted([*self.children[root.span_id], *orphans],
                                                 key=lambda s: (s.start_ns or 0, s.order))
            for orphan in orphans:
                self.tally_of(orphan).note("span whose parent is not in the trace, put under the trace root")
        else:
            self.tops.extend(orphans)
            for orphan in orphans:
                self.tally_of(orphan).note("span whose parent is not in the trace, taken as a top-level span")

    def session_id(self) -> str | None:
        for span in self.spans:
            for key in ("gen_ai.conversation.id", "session.id"):
                value = span.attributes.get(key)
                if isinstance(value, str) and value:
                    return value
        return None

    def groups(self) -> dict[str | None, _Group]:
        """The members of every trajectory: None for the trace, an agent span id for each agent."""
        groups: dict[str | None, _Group] = {None: _Group(None)}
        visited: set[str] = set()
        starts = list(self.tops)
        tops = {span.span_id for span in self.tops}
        starts.extend(s for s in self.by_id.values() if s.span_id not in tops)  # spans in a parent cycle come last
        for start in starts:
            if start.span_id not in visited:
                self._walk(start, groups, visited)
        return groups

    def _walk(self, start: Span, groups: dict[str | None, _Group], visited: set[str]) -> None:
        stack: list[tuple[Span, str | None, _Member | None, Span | None]] = [(start, None, None, None)]
        while stack:
            span, owner, call, tool = stack.pop()
            if span.span_id in visited:
                continue
            visited.add(span.span_id)
            role = span_role(span)
            if role == "agent":
                groups[owner].members.append(_Member("agent", span, via_tool=tool))
                groups[span.span_id] = _Group(span)
                owner, call, tool = span.span_id, None, None
            elif role == "tool" and tool is None:
                groups[owner].members.append(_Member("tool", span))
                tool = span
            elif role == "model" and tool is None:
                if call is None:
                    call = _Member("call", span, [span])
                    groups[owner].members.append(call)
                else:
                    call.chain.append(span)
            elif role is not None:
                self.tally_of(span).add(f"{role} span inside a tool's execution")
            else:
                self.tally_of(span).add("span without a GenAI role (agent, model or tool)")
            children = self.children.get(span.span_id)
            if children:
                stack.extend([(child, owner, call, tool) for child in reversed(children)])


@dataclass(slots=True)
class _Pending:
    """A tool call waiting for its result."""

    step: dict[str, Any]
    call: dict[str, Any]
    answered: bool = False


class _Steps:
    """The steps of one trajectory, with the calls still waiting for results."""

    def __init__(self, trace_id: str, tally_of: TallyOf) -> None:
        self.trace_id = trace_id
        self.tally_of = tally_of
        self.steps: list[dict[str, Any]] = []
        self.by_id: defaultdict[str, deque[_Pending]] = defaultdict(deque)
        self.by_name: defaultdict[str, deque[_Pending]] = defaultdict(deque)
        self.seen: set[tuple[str, str, tuple[str, ...]]] = set()
        self.results: dict[str, dict[str, Any]] = {}
        """Tool span id → the observation result it became (sub-agents run by a tool attach there)."""
        self.tools: dict[str, dict[str, Any]] = {}
        self.answered: set[str] = set()
        self.answered_names: set[str] = set()
        self.memo = InputMemo(self.answered)

    def add(self, step: dict[str, Any]) -> None:
        self.steps.append({"step_id": len(self.steps) + 1, **step})

    def origin(self, span: Span, **more: Any) -> dict[str, Any]:
        """``extra.otel`` of a step: the trace and span it came from."""
        if not self.trace_id:
            return {}
        return {"extra": {"otel": {"trace_id": self.trace_id, "span_id": span.span_id, "span_name": span.name,
                                   **more}}}

    def model_call(self, call: ModelCall) -> None:
        operation = call.spans[-1]
        timestamp = iso_time(call.spans[0].start_ns)
        for message in call.inputs:
            self._input(message, operation, timestamp)
        answers = [m for m in call.outputs if m.role == "assistant"]
        if len(answers) > 1:
            self.tally_of(operation).add("model output beyond the first choice", len(answers) - 1)
        if not answers:
            self.tally_of(operation).note("model call without recorded output")
        answer = answers[0] if answers else Message("assistant", _NO_OUTPUT)
        more: dict[str, Any] = {"spans": [s.span_id for s in call.spans]} if len(call.spans) > 1 else {}
        if call.response_id:
            more["response_id"] = call.response_id
        text = answer.text
        if call.error is not None:
            more["error"] = call.error
            text = _with_error(call.error, text)
        metrics = call.usage.metrics() if call.usage is not None else None
        self.agent(answer, text, operation, timestamp, model=call.model, metrics=metrics, llm_calls=1, more=more)
        for definition in call.tools:
            name = definition.get("function", {}).get("name")
            if isinstance(name, str):
                self.tools.setdefault(name, definition)

    def agent(self, answer: Message, text: str, span: Span, timestamp: str | None, *, model: str | None = None,
              metrics: dict[str, Any] | None = None, llm_calls: int | None = None,
              more: dict[str, Any] | None = None) -> dict[str, Any]:
        """Add an agent step (fields in ATIF's order) and register its calls as waiting for results."""
        step: dict[str, Any] = {"step_id": len(self.steps) + 1, "source": "agent"}
        if timestamp:
            step["timestamp"] = timestamp
        if model:
            step["model_name"] = model
        step["message"] = text
        if answer.reasoning:
            step["reasoning_content"] = answer.reasoning
        calls = _calls(answer.tool_calls, span.span_id) if answer.tool_calls else None
        if calls:
            step["tool_calls"] = calls
        if metrics:
            step["metrics"] = metrics
        if llm_calls is not None:
            step["llm_call_count"] = llm_calls
        step.update(self.origin(span, **(more or {})))
        self.steps.append(step)
        self.seen.add(_key(answer))
        for call in calls or ():
            pending = _Pending(step, call)
            self.by_id[call["tool_call_id"]].append(pending)
            self.by_name[call["function_name"]].append(pending)
        return step

    def _input(self, message: Message, span: Span, timestamp: str | None) -> None:
        """An input message: new system and user text become steps; history already mapped is skipped."""
        if message.role == "tool":
            self._input_result(message, span)
            return
        key = _key(message)
        if key in self.seen:
            return
        if message.role == "assistant":
            self.agent(message, message.text, span, timestamp, more={"from": "input"})
            return
        self.seen.add(key)
        step: dict[str, Any] = {"source": message.role}
        if timestamp:
            step["timestamp"] = timestamp
        step["message"] = message.text
        step.update(self.origin(span, **{"from": "input"}))
        self.add(step)

    def _input_result(self, message: Message, span: Span) -> None:
        if message.call_id is not None and message.call_id in self.answered:
            return  # the result is already mapped (from its tool span or an earlier input)
        pending = self._take(message.call_id, message.name)
        if pending is not None:
            self._attach(pending, message.text, None)
        elif message.call_id is None and message.name in self.answered_names:
            return  # a result without an id, for a call of this tool already answered
        else:
            self.tally_of(span).add("tool result in a model input without its call")

    def _take(self, call_id: str | None, name: str | None) -> _Pending | None:
        """The earliest unanswered call with this id, else (no id match) with this tool name."""
        for key, queues in ((call_id, self.by_id), (name, self.by_name)):
            queue = queues.get(key) if key is not None else None
            while queue:
                pending = queue.popleft()
                if not pending.answered:
                    pending.answered = True
                    return pending
        return None

    def _attach(self, pending: _Pending, content: str, span: Span | None, call_id: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = {"source_call_id": pending.call["tool_call_id"], "content": content}
        self.answered.add(pending.call["tool_call_id"])
        if call_id:
            self.answered.add(call_id)
        self.answered_names.add(pending.call["function_name"])
        if span is not None and self.trace_id:
            result["extra"] = {"otel": {"span_id": span.span_id, **({"call_id": call_id} if call_id else {})}}
        pending.step.setdefault("observation", {"results": []})["results"].append(result)
        return result

    def tool(self, span: Span, run: ToolRun) -> None:
        """A tool span: the observation of the call that asked for it, or a step of its own."""
        content = run.result if run.error is None else _with_error(run.error, run.result)
        pending = self._take(run.call_id, run.name)
        if pending is not None:
            self.results[span.span_id] = self._attach(pending, content, span, run.call_id)
        else:
            self.tally_of(span).note("tool span without a model call asking for it (a step of its own)")
            asked = Message("assistant", tool_calls=[RequestedToolCall(run.call_id, run.name, run.arguments)])
            step = self.agent(asked, "", span, iso_time(span.start_ns), llm_calls=0,
                              more={"error": run.error} if run.error else None)
            own = self.by_id[step["tool_calls"][0]["tool_call_id"]].pop()
            own.answered = True
            self.results[span.span_id] = self._attach(own, content, span, run.call_id)
        if run.error is not None and self.trace_id:
            self.results[span.span_id]["extra"]["otel"]["error"] = run.error

    def delegate(self, member: _Member, child: dict[str, Any], output: str, task: str | None,
                 error: str | None) -> None:
        """A sub-agent: referenced from the tool result that ran it, or from a delegation step of its own."""
        ref = {"trajectory_id": child["trajectory_id"]}
        holder = self.results.get(member.via_tool.span_id) if member.via_tool is not None else None
        if holder is not None:
            holder.setdefault("subagent_trajectory_ref", []).append(ref)
            return
        content = output if error is None else _with_error(error or "error", output)
        name = child["agent"]["name"]
        step: dict[str, Any] = {"source": "agent"}
        if member.span.start_ns is not None:
            step["timestamp"] = iso_time(member.span.start_ns)
        step["message"] = f"Delegated to agent {name}" + (f": {task}" if task else "")
        step["observation"] = {"results": [{"content": content, "subagent_trajectory_ref": [ref]}]}
        step["llm_call_count"] = 0
        step.update(self.origin(member.span))
        self.add(step)


def _with_error(error: str, content: str) -> str:
    """Content shown after the error, so the judge sees that the operation failed."""
    return f"[error: {error}]" + (f"\n{content}" if content else "")


def _key(message: Message) -> tuple[str, str, tuple[str, ...]]:
    return message.role, message.text.strip(), tuple([call.name for call in message.tool_calls])


def _calls(calls: list[RequestedToolCall], span_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    taken: set[str] = set()
    for index, call in enumerate(calls):
        call_id = unique(call.call_id or f"{span_id}.{index}", taken)
        found.append({"tool_call_id": call_id, "function_name": call.name, "arguments": call.arguments})
    return found


class _Builder:
    """Builds the trajectory of one group, and those of its sub-agents, depth first."""

    def __init__(self, groups: dict[str | None, _Group], tally_of: TallyOf, session_id: str | None) -> None:
        self.groups = groups
        self.tally_of = tally_of
        self.session_id = session_id
        self.built: dict[str | None, dict[str, Any]] = {}
        self.infos: dict[str, AgentInfo] = {}

    def trajectory(self, key: str | None, top: Span | None, depth: int) -> dict[str, Any] | None:
        if depth > _MAX_AGENT_DEPTH:
            raise InputError(f"{top.source if top else 'trace'}: agent spans nested over {_MAX_AGENT_DEPTH} deep")
        group = self.groups[key]
        anchor = group.agent or top
        if anchor is None:
            return None
        steps = _Steps(anchor.trace_id, self.tally_of)
        subagents: list[dict[str, Any]] = []
        taken: set[str] = set()
        for member in sorted(group.members, key=lambda m: (m.span.start_ns or 0, m.span.order)):
            self._member(member, steps, subagents, taken, depth)
        info = None
        if group.agent is not None:
            info = self.infos[group.agent.span_id] = agent_info(group.agent, self.tally_of(group.agent))
            count_unread(group.agent, self.tally_of(group.agent))
        if not steps.steps:
            if group.agent is not None:
                self.tally_of(group.agent).add("agent span with no model call, tool or sub-agent inside")
            return None
        document = self._document(anchor, info, steps, subagents, group.agent is None)
        self.built[key] = document
        return document

    def _member(self, member: _Member, steps: _Steps, subagents: list[dict[str, Any]], taken: set[str],
                depth: int) -> None:
        tally = self.tally_of(member.span)
        if member.kind == "call":
            steps.model_call(read_model_call(member.chain, tally, steps.memo))
            for span in member.chain:
                count_unread(span, self.tally_of(span))
        elif member.kind == "tool":
            steps.tool(member.span, tool_run(member.span))
            count_unread(member.span, tally)
        else:
            child = self.trajectory(member.span.span_id, member.span, depth + 1)
            if child is None:
                return
            info = self.infos[member.span.span_id]
            child["trajectory_id"] = unique(slug(f"{child['agent']['name']}-{member.span.span_id}"), taken)
            steps.delegate(member, child, info.output or _last_answer(child), info.task, member.span.error)
            subagents.append(child)

    def _document(self, anchor: Span, info: AgentInfo | None, steps: _Steps, subagents: list[dict[str, Any]],
                  trace_level: bool) -> dict[str, Any]:
        models = [s["model_name"] for s in steps.steps if "model_name" in s]
        agent: dict[str, Any] = {
            "name": info.name if info is not None else _service(anchor),
            "version": info.version if info is not None else "unknown",
        }
        if models:
            agent["model_name"] = max(set(models), key=lambda m: (models.count(m), m))
        if steps.tools:
            agent["tool_definitions"] = list(steps.tools.values())
        if info is not None and info.description:
            agent["extra"] = {"description": info.description}
        session = self.session_id or anchor.trace_id
        document: dict[str, Any] = {"schema_version": SCHEMA_VERSION, **({"session_id": session} if session else {}),
                                    "trajectory_id": "", "agent": agent, "steps": steps.steps}
        if subagents:
            document["subagent_trajectories"] = subagents
        if anchor.trace_id:
            otel: dict[str, Any] = {"trace_id": anchor.trace_id, "span_id": anchor.span_id, "span_name": anchor.name}
            if trace_level:
                otel["trace_level"] = True
            if anchor.error is not None:
                otel["error"] = anchor.error or "error"
            document["extra"] = {"otel": otel}
        return document

    def task(self, root_key: str | None) -> str | None:
        """The root's task: its agent span's input, else the first user message anywhere in the tree."""
        if root_key is not None and self.infos[root_key].task:
            return self.infos[root_key].task
        document = self.built.get(root_key)
        stack = [document] if document is not None else []
        while stack:
            current = stack.pop(0)
            for step in current["steps"]:
                if step["source"] == "user" and isinstance(step.get("message"), str) and step["message"].strip():
                    return str(step["message"])
            stack.extend(current.get("subagent_trajectories") or ())
        return None


def _attribute_task(spans: list[Span], name: str | None) -> str | None:
    """The first non-blank text of attribute ``name`` over the trace's spans, earliest first."""
    if name is None:
        return None
    for span in sorted(spans, key=lambda s: (s.start_ns is None, s.start_ns or 0, s.order)):
        value = span.attributes.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _only_delegates(document: dict[str, Any]) -> bool:
    """A trace-level trajectory whose one step hands everything to its one sub-agent."""
    steps = document["steps"]
    return len(document.get("subagent_trajectories") or ()) == 1 and len(steps) == 1 and "tool_calls" not in steps[0]


def _service(span: Span) -> str:
    name = span.resource.get("service.name")
    return str(name) if name else (span.scope or "unknown")


def _last_answer(document: dict[str, Any]) -> str:
    for step in reversed(document["steps"]):
        message = step.get("message")
        if step["source"] == "agent" and isinstance(message, str) and message and message != _NO_OUTPUT:
            return message
    return ""
