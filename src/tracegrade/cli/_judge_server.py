"""``tracegrade judge-server --scripted``: an offline OpenAI-compatible judge answering by documented rules."""

from __future__ import annotations

import errno
import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tracegrade.errors import ConfigError, InputError

if TYPE_CHECKING:
    from tracegrade.judge.testing import Rules

__all__ = ["judge_server"]


def judge_server(
    scripted: Annotated[bool, typer.Option("--scripted", help="Answer by deterministic rules.")] = False,
    rules: Annotated[
        Path | None, typer.Option("--rules", help="Rules file (YAML or JSON) over the built-in rules.")
    ] = None,
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: a free one).", min=0, max=65535)] = 0,
    host: Annotated[str, typer.Option("--host", help="Interface to bind.")] = "127.0.0.1",
    latency: Annotated[float, typer.Option("--latency", help="Seconds before every answer.", min=0.0)] = 0.0,
) -> None:
    """Serve an OpenAI-compatible judge on loopback that answers every tracegrade request by rules.

    Prints the base URL (for --judge-url) as its first line, then serves until Ctrl-C or SIGTERM.
    Every answer is deterministic: the rules (docs/scripted-judge.md) read the request's content.
    Use it to try judge, compare, localise, agree and a CI gate offline; its scores grade nothing.
    """
    if not scripted:
        raise ConfigError("judge-server needs --scripted (the only kind of judge it serves)")
    from tracegrade.judge.testing import ScriptedJudgeServer, scripted_rule

    chosen = None if rules is None else _read_rules(rules)
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):  # also when started with '&', which ignores SIGINT
        signal.signal(signum, lambda *_: done.set())
    try:
        server = ScriptedJudgeServer(scripted_rule(chosen), latency=latency, host=host, port=port,
                                     record_bodies=False).start()
    except OSError as error:
        reason = "address already in use" if error.errno == errno.EADDRINUSE else (error.strerror or str(error))
        raise ConfigError(f"judge-server: cannot listen on {host}:{port}: {reason}") from None
    try:
        print(f"{server.base_url}/v1", flush=True)
        while not done.wait(0.5):
            pass
    finally:
        server.stop()


def _read_rules(path: Path) -> Rules:
    from tracegrade.judge.testing import RulesError, rules_from_mapping
    from tracegrade.rubric import TextParseError, parse_rubric_text
    from tracegrade.runs import read_capped

    try:
        text = read_capped(path, 1 << 20).decode("utf-8")
        return rules_from_mapping(parse_rubric_text(text))
    except UnicodeDecodeError:
        raise InputError(f"{path}: the rules file is not UTF-8 text") from None
    except (TextParseError, RulesError) as error:
        raise InputError(f"{path}: {error}") from None
