"""Load files, directories or several paths of ATIF trajectories into trees."""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tracegrade.atif.reading._checks import DocumentFacts, document_facts
from tracegrade.atif.reading._document import Document, DocumentProblem, read_documents
from tracegrade.atif.reading._models import Trajectory
from tracegrade.atif.reading._options import LoadOptions
from tracegrade.atif.reading._records import (
    FileReport,
    InputAccount,
    InputStatus,
    LoadResult,
    NodeStatus,
    TrajectoryNode,
    iter_nodes,
)
from tracegrade.atif.reading._refs import RefProblem, resolve_ref
from tracegrade.atif.reading._task import task_facts
from tracegrade.atif.reading._tree import RefIssue, StepRefs, TreeBuilder, iter_file_refs, skeleton
from tracegrade.errors import InputError, LimitExceededError

__all__ = ["LISTED_PROBLEMS", "Outline", "RootSource", "load_trajectories", "read_outline", "read_tree"]

_SUFFIXES = (".json", ".jsonl")


_Kept = list[Document | DocumentProblem] | Trajectory
"""A file's documents as the store keeps them: a list, or the one shared skeleton of a slim ``.json`` file
whose document has no references (most files: no ``Path`` or ``Document`` is kept for it)."""


class _Store:
    """Reads each file at most once, enforcing the file-count limit; files are keyed by their path as a string.

    With ``slim`` (``validate``, a job's outline), each document's report facts are taken as it is read and
    only its skeleton (what tree building reads) is kept.
    """

    def __init__(self, options: LoadOptions, *, reports: bool, slim: bool) -> None:
        self.options = options
        self.reports = reports
        self.slim = slim
        self.files: dict[str, _Kept] = {}
        self.accounts: list[InputAccount] = []
        """Every document read, in the order read (kept when a file's documents are released)."""
        self.read_count = 0
        self._released: set[str] = set()
        self.facts: dict[tuple[str, str], DocumentFacts] = {}
        self.refs = StepRefs()
        """Shared by root finding and tree building; filled as each document is read."""
        self.no_user_text: set[tuple[str, str]] = set()
        """Documents (path, location) with no user step with text (outlines keep no steps; most have one)."""
        self.taskless: set[tuple[str, str]] = set()
        """Of those, the documents that declare no task either."""

    def read(self, path: str) -> list[Document | DocumentProblem]:
        kept = self.files.get(path)
        if kept is None:
            again = path in self._released
            if not again and self.read_count >= self.options.max_trajectory_files:
                raise LimitExceededError(
                    f"{path}: more than max_trajectory_files={self.options.max_trajectory_files} files"
                )
            documents = [self._keep(item, path) for item in read_documents(Path(path), self.options)]
            if not again:
                self.read_count += 1
                self.accounts.extend(_account(item, path) for item in documents)
            self.files[path] = self._compact(documents) if self.slim else documents
            return documents
        return self.documents(path)

    def documents(self, path: str) -> list[Document | DocumentProblem]:
        """The documents of a file already read."""
        kept = self.files[path]
        return [Document(Path(path), "", kept)] if isinstance(kept, Trajectory) else kept

    def release(self, path: str) -> None:
        """Drop a file's documents once its trees are built; its accounts stay, and a later read does not count."""
        del self.files[path]
        self._released.add(path)

    def _keep(self, item: Document | DocumentProblem, path: str) -> Document | DocumentProblem:
        if isinstance(item, DocumentProblem):
            return item
        # validate keeps skeletons only: there a load-wide search would keep every full model alive
        refs = StepRefs() if self.slim else self.refs
        facts = task_facts(item.trajectory)
        if not facts.user_text:
            self.no_user_text.add((path, item.location))
            if not facts.declared:
                self.taskless.add((path, item.location))
        if self.reports:
            self.facts[(path, item.location)] = document_facts(item.trajectory, refs)
        if self.slim:
            item = Document(item.path, item.location, skeleton(item.trajectory, refs, document=True))
        self.refs.of(item.trajectory)  # now, while its steps are still in the CPU caches
        return item

    def _compact(self, documents: list[Document | DocumentProblem]) -> _Kept:
        """A slim file's documents as kept: the bare skeleton when it is one document that refers to nothing."""
        if len(documents) == 1:
            only = documents[0]
            if isinstance(only, Document) and not only.location:
                trajectory = only.trajectory
                if (
                    trajectory.continued_trajectory_ref is None
                    and trajectory.subagent_trajectories is None
                    and not self.refs.of(trajectory)
                ):
                    return trajectory
        return documents

    def single(self, path: Path) -> Document | DocumentProblem:
        """The one document of a referenced file (a JSONL file cannot be a reference target)."""
        documents = self.read(str(path))
        if path.suffix == ".jsonl" or len(documents) != 1:
            return DocumentProblem(path, "", "invalid_reference_target", "a reference must name a .json file")
        return documents[0]


def load_trajectories(paths: Sequence[str | Path], options: LoadOptions | None = None, *, reports: bool = False,
                      trees: bool = True) -> LoadResult:
    """Read files, directories (recursive) or several paths into trajectory trees.

    ``reports=True`` also fills ``LoadResult.files`` with per-file verdicts and warnings. ``trees=False``
    (with ``reports=True``, as ``tracegrade validate`` does) keeps only each document's report facts and
    references while reading; ``roots`` is then empty.

    Raises:
        InputError: a path does not exist, is not a regular file or a directory, is a directory without
            trajectory files, or (strict mode) an input file is invalid.
        LimitExceededError: a file-count or total-step limit was exceeded.
    """
    options = options or LoadOptions()
    if not paths:
        raise InputError("no input paths given")
    return _load(paths, options, reports, trees)


def _load(paths: Sequence[str | Path], options: LoadOptions, reports: bool, trees: bool) -> LoadResult:
    return _read(paths, options, reports=reports, trees=trees, keep_roots=trees).result


@dataclass(frozen=True, slots=True)
class RootSource:
    """Where one root tree's document is, to read its tree again."""

    path: str
    """The file, as resolved on disk (a string: the outline keeps one per root for the whole job)."""
    location: str
    """The document's place in ``path``: ``""``, or ``"line N"`` of a JSONL file."""
    root: Path
    """The input folder (or the file's folder) its references must stay inside."""
    steps: int
    """Steps of the tree's nodes within the depth limit."""
    has_task: bool = True
    """Whether the root has a task (auto mode needs one to derive its criteria)."""


@dataclass(frozen=True, slots=True)
class Outline:
    """A collection read without keeping its steps: skeleton trees, every input accounted for."""

    result: LoadResult
    """Roots as outline trees (ids, statuses, files and references; nodes carry neither steps nor models)."""
    sources: dict[str, RootSource]
    """Each root's document, by root node id."""
    base: Path
    """The common folder node ids are relative to."""


def read_outline(paths: Sequence[str | Path], options: LoadOptions) -> Outline:
    """Read every input once, keeping only what tree building reads (as ``validate`` does), and the roots.

    Raises the errors of :func:`load_trajectories`.
    """
    if not paths:
        raise InputError("no input paths given")
    return _read(paths, options, reports=False, trees=False, keep_roots=True)


def _read(paths: Sequence[str | Path], options: LoadOptions, *, reports: bool, trees: bool,
          keep_roots: bool) -> Outline:
    inputs, skipped = _collect(paths, options)
    base = _common_base([root for _, root in inputs])
    store = _Store(options, reports=reports, slim=not trees)
    for path, _ in inputs:
        store.read(path)
    if options.strict:
        _raise_first_problem(store)
    roots, referenced = _root_files(inputs, store, store.refs)
    del inputs
    built: list[TrajectoryNode] = []
    sources: dict[str, RootSource] = {}
    issues: list[RefIssue] = []
    steps = 0
    for document, path, root in _root_documents(roots, store, release=not reports, keep=referenced):
        builder = TreeBuilder(root=root, base=base, max_depth=options.max_subagent_depth, load_file=store.single,
                              keep_steps=trees, refs=store.refs)
        tree = builder.build(document, path)
        steps += builder.step_count
        built.append(tree)
        sources[tree.node_id] = RootSource(path, document.location, root, builder.loaded_steps,
                                           _has_task(store, path, document.location, tree.segments))
        issues.extend(builder.issues)
    _check_total_steps(steps, options)
    accounts = _accounts(store, skipped, issues)
    files = _file_reports(store, built, issues) if reports else ()
    return Outline(LoadResult(tuple(built) if keep_roots else (), accounts, files), sources, base)


def _has_task(store: _Store, path: str, location: str, segments: Sequence[str]) -> bool:
    """Whether a root has a task: declared in its document, or a user step with text in any of its segments."""
    if (path, location) not in store.taskless:
        return True
    return any((segment, "") not in store.no_user_text for segment in segments)


def read_tree(source: RootSource, document: Document, options: LoadOptions, base: Path) -> TrajectoryNode:
    """The full tree of one root document, its referenced files read again (kept for this tree only)."""
    store = _Store(options, reports=False, slim=False)
    builder = TreeBuilder(
        root=source.root, base=base, max_depth=options.max_subagent_depth, load_file=store.single, refs=store.refs
    )
    return builder.build(document)


def _collect(paths: Sequence[str | Path], options: LoadOptions) -> tuple[list[tuple[str, Path]], list[InputAccount]]:
    """Every input file (resolved, as a string) with its input folder, in path order; and the links skipped."""
    found: dict[str, Path] = {}
    skipped: list[InputAccount] = []
    for raw in paths:
        given = Path(raw)
        try:
            mode = given.stat().st_mode
        except OSError:
            raise InputError(f"{given}: no such file or directory") from None
        if stat.S_ISDIR(mode):
            root = given.resolve()
            before = len(found) + len(skipped)
            for file in _walk(root, skipped):
                found.setdefault(file, root)
            if len(found) + len(skipped) == before:
                raise InputError(f"{given}: no trajectory files (.json, .jsonl) in this directory", code="no_inputs")
        elif stat.S_ISREG(mode):
            real = given.resolve()
            found.setdefault(str(real), real.parent)
        else:
            raise InputError(f"{given}: not a regular file or a directory (a FIFO, socket or device is never read)",
                             code="not_a_file")
        if len(found) > options.max_trajectory_files:
            raise LimitExceededError(
                f"{given}: more than max_trajectory_files={options.max_trajectory_files} trajectory files"
            )
    return sorted(found.items(), key=_path_order), skipped


def _path_order(item: tuple[str, Path]) -> list[str]:
    """Sort key of an absolute path: part by part, as ``Path`` objects compare on POSIX."""
    return item[0].split(os.sep)


def _walk(root: Path, skipped: list[InputAccount]) -> Iterator[str]:
    """Trajectory files under ``root`` (already resolved), without following directory links.

    A plain file reached through plain directories is already its real path; links and anything else
    named like a trajectory go through ``resolve_ref``, which refuses what leaves the root.
    """
    folders = [str(root)]
    while folders:
        with os.scandir(folders.pop()) as scan:
            entries = sorted(scan, key=lambda e: e.name)
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            elif entry.name.endswith(_SUFFIXES):
                if entry.is_file(follow_symlinks=False):
                    yield entry.path
                    continue
                path = Path(entry.path)
                target = resolve_ref(entry.path, path, root)
                if isinstance(target, RefProblem):
                    skipped.append(InputAccount(entry.path, "", InputStatus.SKIPPED, target.code, target.message))
                else:
                    yield str(target)


def _common_base(roots: list[Path]) -> Path:
    if not roots:
        return Path.cwd()
    return Path(os.path.commonpath([str(r) for r in roots]))


LISTED_PROBLEMS = 10
"""Most invalid inputs a strict load names one by one; the rest are counted."""


def _raise_first_problem(store: _Store) -> None:
    """Refuse the inputs when any is invalid, naming every invalid one (up to ten, then a count)."""
    problems = [item for kept in store.files.values() for item in (kept if isinstance(kept, list) else ())
                if isinstance(item, DocumentProblem)]  # a bare skeleton is a valid document
    if not problems:
        return
    if len(problems) == 1:
        raise InputError(problems[0].describe(), code=problems[0].code)
    listed = "\n".join(f"  {problem.describe()}" for problem in problems[:LISTED_PROBLEMS])
    more = len(problems) - LISTED_PROBLEMS
    tail = f"\n  ... and {more} more" if more > 0 else ""
    raise InputError(f"{len(problems)} of {len(store.files)} input files are invalid, so none was scored "
                     f"(--tolerant scores the valid ones and records these):\n{listed}{tail}", code=problems[0].code)


def _root_files(inputs: list[tuple[str, Path]], store: _Store,
                refs: StepRefs) -> tuple[deque[tuple[str, Path]], dict[str, set[str]]]:
    """Files no other input file references, and what references each referenced file.

    Files only reachable through a cycle become roots too.
    """
    referenced: dict[str, set[str]] = {}
    for path, root in inputs:
        kept = store.files[path]
        if isinstance(kept, Trajectory):  # refers to nothing
            continue
        for item in kept:
            if isinstance(item, Document):
                for ref in iter_file_refs(item.trajectory, refs):
                    target = resolve_ref(ref, item.path, root)
                    if isinstance(target, Path) and str(target) != path:
                        referenced.setdefault(str(target), set()).add(path)
    if not referenced:
        return deque(inputs), referenced
    roots = deque((path, root) for path, root in inputs if path not in referenced)
    reached = _reachable([p for p, _ in roots], referenced)
    for path, root in inputs:
        if path not in reached:
            roots.append((path, root))
            reached |= _reachable([path], referenced)
    return roots, referenced


def _root_documents(roots: deque[tuple[str, Path]], store: _Store, *, release: bool,
                    keep: Container[str]) -> Iterator[tuple[Document, str, Path]]:
    """The documents of the root files (taken from ``roots``), each with its file and its input folder.

    With ``release``, each file not in ``keep`` is released from the store once the tree of its last document is
    built, so that the outline and the documents it was read from are not held at once.
    """
    while roots:
        path, root = roots.popleft()
        yield from ((doc, path, root) for doc in store.documents(path) if isinstance(doc, Document))
        if release and path not in keep:
            store.release(path)


def _reachable(starts: list[str], referenced: dict[str, set[str]]) -> set[str]:
    children: dict[str, set[str]] = {}
    for target, referrers in referenced.items():
        for referrer in referrers:
            children.setdefault(referrer, set()).add(target)
    seen: set[str] = set()
    stack = list(starts)
    while stack:
        path = stack.pop()
        if path not in seen:
            seen.add(path)
            stack.extend(children.get(path, ()))
    return seen


def _check_total_steps(total: int, options: LoadOptions) -> None:
    if total > options.max_total_steps:
        raise LimitExceededError(f"inputs hold {total} steps, over max_total_steps={options.max_total_steps}")


def _account(item: Document | DocumentProblem, path: str) -> InputAccount:
    """The account of one document read from ``path`` (the store's key, shared by every record of the file)."""
    if isinstance(item, Document):
        return InputAccount(path, item.location, InputStatus.LOADED)
    return InputAccount(path, item.location, InputStatus.INVALID, item.code, item.describe())


def _accounts(store: _Store, skipped: list[InputAccount], issues: list[RefIssue]) -> tuple[InputAccount, ...]:
    accounts = [*skipped, *store.accounts]
    for issue in issues:
        if issue.code in {"unresolvable_ref", "ref_outside_root", "url_ref", "symlink_loop", "cycle"}:
            accounts.append(
                InputAccount(
                    issue.target,
                    f"{issue.referrer}#{issue.location}",
                    InputStatus.INVALID,
                    issue.code,
                    f"{issue.referrer}: {issue.location}: {issue.message}",
                )
            )
    return tuple(accounts)


def _file_reports(store: _Store, trees: list[TrajectoryNode], issues: list[RefIssue]) -> tuple[FileReport, ...]:
    roles: dict[str, str] = {}
    for tree in trees:
        for node in iter_nodes(tree):
            if node.status is not NodeStatus.INVALID and not node.embedded:
                roles.setdefault(node.source_path, "root" if node.depth == 0 else "subagent")
            for segment in node.segments:
                roles[segment] = "continuation"
    by_file: dict[str, list[str]] = {}
    for issue in issues:
        by_file.setdefault(str(issue.referrer), []).append(f"{issue.location}: {issue.message}")
    reports = []
    for path, kept in store.files.items():
        for item in kept if isinstance(kept, list) else (None,):  # None: the one document of a bare skeleton
            if isinstance(item, DocumentProblem):
                reports.append(FileReport(path, item.location, False, code=item.code, error=item.describe()))
                continue
            location = "" if item is None else item.location
            facts = store.facts[(path, location)]
            reports.append(
                FileReport(path=path, location=location, valid=True, schema_version=facts.schema_version,
                           agent=facts.agent, steps=facts.steps, embedded_subagents=facts.embedded_subagents,
                           file_subagents=facts.file_subagents, continuation=facts.continuation,
                           role=roles.get(path, "root"), warnings=facts.warnings + tuple(by_file.get(path, ())))
            )
    return tuple(reports)
