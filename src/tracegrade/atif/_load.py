"""Load files, directories or several paths of ATIF trajectories into trees."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from evalhub.models.atif import Trajectory

from tracegrade.atif._checks import check_trajectory
from tracegrade.atif._document import Document, DocumentProblem, read_documents
from tracegrade.atif._options import LoadOptions
from tracegrade.atif._records import (
    FileReport,
    InputAccount,
    InputStatus,
    LoadResult,
    NodeStatus,
    TrajectoryNode,
    iter_nodes,
)
from tracegrade.atif._refs import RefProblem, resolve_ref
from tracegrade.atif._tree import RefIssue, TreeBuilder, iter_file_refs
from tracegrade.errors import InputError, LimitExceededError

__all__ = ["load_trajectories"]

_SUFFIXES = (".json", ".jsonl")


class _Store:
    """Reads each file at most once, enforcing the file-count limit."""

    def __init__(self, options: LoadOptions) -> None:
        self.options = options
        self.files: dict[Path, list[Document | DocumentProblem]] = {}

    def read(self, path: Path) -> list[Document | DocumentProblem]:
        if path not in self.files:
            if len(self.files) >= self.options.max_trajectory_files:
                raise LimitExceededError(
                    f"{path}: more than max_trajectory_files={self.options.max_trajectory_files} files"
                )
            self.files[path] = list(read_documents(path, self.options))
        return self.files[path]

    def single(self, path: Path) -> Document | DocumentProblem:
        """The one document of a referenced file (a JSONL file cannot be a reference target)."""
        documents = self.read(path)
        if path.suffix == ".jsonl" or len(documents) != 1:
            return DocumentProblem(path, "", "invalid_reference_target", "a reference must name a .json file")
        return documents[0]


def load_trajectories(
    paths: Sequence[str | Path], options: LoadOptions | None = None, *, reports: bool = False
) -> LoadResult:
    """Read files, directories (recursive) or several paths into trajectory trees.

    ``reports=True`` also fills ``LoadResult.files`` with per-file verdicts and warnings.

    Raises:
        InputError: a path does not exist, or (strict mode) an input file is invalid.
        LimitExceededError: a file-count or total-step limit was exceeded.
    """
    options = options or LoadOptions()
    if not paths:
        raise InputError("no input paths given")
    with _no_cyclic_gc():
        return _load(paths, options, reports)


@contextmanager
def _no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while loading.

    Loading only allocates objects that live as long as the job, so collections during the load find nothing
    and their cost grows with the heap; the collector runs again, as usual, once the load is over.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load(paths: Sequence[str | Path], options: LoadOptions, reports: bool) -> LoadResult:
    inputs, skipped = _collect(paths, options)
    base = _common_base([root for _, root in inputs])
    store = _Store(options)
    for path, _ in inputs:
        store.read(path)
    if options.strict:
        _raise_first_problem(store)
    roots = _root_documents(inputs, store)
    trees: list[TrajectoryNode] = []
    issues: list[RefIssue] = []
    for document, root in roots:
        builder = TreeBuilder(root=root, base=base, max_depth=options.max_subagent_depth, load_file=store.single)
        trees.append(builder.build(document))
        issues.extend(builder.issues)
    _check_total_steps(trees, options)
    accounts = _accounts(store, skipped, issues)
    files = _file_reports(store, trees, issues) if reports else ()
    return LoadResult(tuple(trees), accounts, files)


def _collect(paths: Sequence[str | Path], options: LoadOptions) -> tuple[list[tuple[Path, Path]], list[InputAccount]]:
    found: dict[Path, Path] = {}
    skipped: list[InputAccount] = []
    for raw in paths:
        given = Path(raw)
        if not given.exists():
            raise InputError(f"{given}: no such file or directory")
        if given.is_dir():
            root = given.resolve()
            for file in _walk(root, skipped):
                found.setdefault(file, root)
        else:
            real = given.resolve()
            found.setdefault(real, real.parent)
        if len(found) > options.max_trajectory_files:
            raise LimitExceededError(
                f"{given}: more than max_trajectory_files={options.max_trajectory_files} trajectory files"
            )
    return sorted(found.items()), skipped


def _walk(root: Path, skipped: list[InputAccount]) -> Iterable[Path]:
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(_SUFFIXES):
                continue
            path = Path(folder, name)
            target = resolve_ref(str(path), path, root)
            if isinstance(target, RefProblem):
                skipped.append(InputAccount(str(path), "", InputStatus.SKIPPED, target.code, target.message))
            else:
                yield target


def _common_base(roots: list[Path]) -> Path:
    if not roots:
        return Path.cwd()
    return Path(os.path.commonpath([str(r) for r in roots]))


def _raise_first_problem(store: _Store) -> None:
    for documents in store.files.values():
        for item in documents:
            if isinstance(item, DocumentProblem):
                raise InputError(item.describe(), code=item.code)


def _root_documents(inputs: list[tuple[Path, Path]], store: _Store) -> list[tuple[Document, Path]]:
    """Documents no other input file references; files only reachable through a cycle become roots too."""
    referenced: dict[Path, set[Path]] = {}
    for path, root in inputs:
        for item in store.files[path]:
            if isinstance(item, Document):
                for ref in iter_file_refs(item.trajectory):
                    target = resolve_ref(ref, path, root)
                    if isinstance(target, Path) and target != path:
                        referenced.setdefault(target, set()).add(path)
    roots = [(path, root) for path, root in inputs if path not in referenced]
    reached = _reachable([p for p, _ in roots], referenced)
    for path, root in inputs:
        if path not in reached:
            roots.append((path, root))
            reached |= _reachable([path], referenced)
    return [(doc, root) for path, root in roots for doc in store.files[path] if isinstance(doc, Document)]


def _reachable(starts: list[Path], referenced: dict[Path, set[Path]]) -> set[Path]:
    children: dict[Path, set[Path]] = {}
    for target, referrers in referenced.items():
        for referrer in referrers:
            children.setdefault(referrer, set()).add(target)
    seen: set[Path] = set()
    stack = list(starts)
    while stack:
        path = stack.pop()
        if path not in seen:
            seen.add(path)
            stack.extend(children.get(path, ()))
    return seen


def _check_total_steps(trees: list[TrajectoryNode], options: LoadOptions) -> None:
    total = sum(len(n.steps) for tree in trees for n in iter_nodes(tree))
    if total > options.max_total_steps:
        raise LimitExceededError(f"inputs hold {total} steps, over max_total_steps={options.max_total_steps}")


def _accounts(store: _Store, skipped: list[InputAccount], issues: list[RefIssue]) -> tuple[InputAccount, ...]:
    accounts = list(skipped)
    for documents in store.files.values():
        for item in documents:
            if isinstance(item, Document):
                accounts.append(InputAccount(str(item.path), item.location, InputStatus.LOADED))
            else:
                accounts.append(
                    InputAccount(str(item.path), item.location, InputStatus.INVALID, item.code, item.describe())
                )
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
    by_file: dict[Path, list[str]] = {}
    for issue in issues:
        by_file.setdefault(issue.referrer, []).append(f"{issue.location}: {issue.message}")
    reports = []
    for path, documents in store.files.items():
        for item in documents:
            if isinstance(item, DocumentProblem):
                reports.append(FileReport(str(path), item.location, False, code=item.code, error=item.describe()))
                continue
            trajectory = item.trajectory
            reports.append(
                FileReport(
                    path=str(path),
                    location=item.location,
                    valid=True,
                    schema_version=trajectory.schema_version,
                    agent=trajectory.agent.name,
                    steps=len(trajectory.steps),
                    embedded_subagents=_count_embedded(trajectory.subagent_trajectories or []),
                    file_subagents=sum(
                        1 for r in iter_file_refs(trajectory) if r != trajectory.continued_trajectory_ref
                    ),
                    continuation=trajectory.continued_trajectory_ref,
                    role=roles.get(str(path), "root"),
                    warnings=tuple(check_trajectory(trajectory)) + tuple(by_file.get(path, ())),
                )
            )
    return tuple(reports)


def _count_embedded(subs: list[Trajectory]) -> int:
    return sum(1 + _count_embedded(s.subagent_trajectories or []) for s in subs)
