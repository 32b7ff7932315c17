"""The ``tracegrade`` app, its error handling and exit codes."""

from __future__ import annotations

import logging
import sys
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from typer.exceptions import TyperException

from tracegrade._io import command_collector, offline_command, skip_final_collection
from tracegrade.cli._agree import agree
from tracegrade.cli._compare import EXIT_CODES_HELP as COMPARE_EXIT_CODES
from tracegrade.cli._compare import compare
from tracegrade.cli._dabench import dabench_app
from tracegrade.cli._evalhub import evalhub_app
from tracegrade.cli._help import NOTHING_KEPT, App
from tracegrade.cli._import import export_app, import_app
from tracegrade.cli._judge import judge, merge
from tracegrade.cli._judge_server import judge_server
from tracegrade.cli._localise import localise
from tracegrade.cli._review import review
from tracegrade.cli._suite import suite_app
from tracegrade.cli._validate import validate
from tracegrade.errors import ExitCode, Interrupted, TracegradeError

__all__ = ["app", "dabench_main", "main"]

EXIT_CODES_HELP = (
    "Exit codes: 0 ok; 1 evaluation disagreement or failed threshold; 2 invalid input or usage; "
    "3 missing optional dependency; 4 operational failure; 130 interrupted."
)

app = App(
    name="tracegrade",
    help=f"Grade AI-agent runs.\n\n{EXIT_CODES_HELP}",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command(epilog=EXIT_CODES_HELP)(validate)
app.command(epilog=EXIT_CODES_HELP)(judge)
app.command(epilog=EXIT_CODES_HELP)(merge)
app.command(epilog=EXIT_CODES_HELP)(agree)
app.command(epilog=EXIT_CODES_HELP)(localise)
app.command(epilog=EXIT_CODES_HELP)(review)
app.command(epilog=COMPARE_EXIT_CODES)(compare)
app.command("judge-server", epilog=EXIT_CODES_HELP)(judge_server)
app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")
app.add_typer(evalhub_app, name="evalhub")
app.add_typer(dabench_app, name="dabench")
app.add_typer(suite_app, name="suite")

_stderr = Console(stderr=True, highlight=False, soft_wrap=True)


class _WrappedWarnings(logging.Handler):
    """Warnings nothing else handles, as ``warning: ...`` on stderr wrapped at word boundaries."""

    def emit(self, record: logging.LogRecord) -> None:
        from tracegrade.runs import live_console  # a bar being drawn is redrawn below the warning, not left behind

        console = live_console() or Console(stderr=True, highlight=False)
        console.print(f"{record.levelname.lower()}: {record.getMessage()}", markup=False, highlight=False)


def _package_version() -> str:
    import tracegrade  # read on demand: the metadata lookup stays out of every other command

    return str(tracegrade.__version__)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tracegrade {_package_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Grade AI-agent runs."""


def run_app(command: typer.Typer, argv: list[str] | None = None) -> int:
    """Run a typer app, mapping tracegrade errors and Ctrl-C to documented exit codes."""
    logging.lastResort = _WrappedWarnings(logging.WARNING)
    try:
        offline = command is app and offline_command(sys.argv[1:] if argv is None else argv)
        with command_collector(offline=offline):
            returned = command(args=argv, standalone_mode=False)
    except Interrupted as exc:
        _stderr.print(_safe(f"interrupted: {exc.message}"), markup=False)
        return int(exc.exit_code)
    except TracegradeError as exc:
        _stderr.print(_safe(f"error: {exc.message}"), markup=False)
        return int(exc.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        _stderr.print(f"interrupted: {NOTHING_KEPT}", markup=False)
        return int(ExitCode.INTERRUPTED)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except OSError as exc:  # a full disk, a file too large, a folder gone: wherever it happens, one line
        _stderr.print(_safe(f"error: {_os_error(exc)}"), markup=False)
        return int(ExitCode.OPERATIONAL)
    except TyperException as exc:
        show = getattr(exc, "show", None)  # usage errors: click prints the usage line and the problem
        if callable(show):
            show()
        else:
            _stderr.print(_safe(f"error: {exc}"), markup=False)
        return int(ExitCode.INVALID_INPUT)
    return returned if isinstance(returned, int) else int(ExitCode.OK)


def _os_error(exc: OSError) -> str:
    """An operating-system error in one line: the file, what went wrong (no traceback)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    where = f"{exc.filename}: " if exc.filename is not None else ""
    return f"{where}{reason} (an operating-system error; what was written before it is kept)"


def _safe(text: str) -> str:
    from tracegrade.render import terminal_safe  # messages quote names and text from the user's files

    return terminal_safe(text, lines=True)


def main() -> None:
    """Console-script entry point of ``tracegrade``."""
    _exit(run_app(app))


def dabench_main() -> None:
    """Console-script entry point of ``dabench`` (DataAgent-Bench eval-v2)."""
    if any(arg in ("--version",) for arg in sys.argv[1:]):
        print(f"dabench (tracegrade {_package_version()})")
        sys.exit(0)
    _exit(run_app(dabench_app))


def _exit(code: int) -> NoReturn:
    """End the process with ``code``; what the command left in memory is not walked by the collector again."""
    skip_final_collection()
    sys.exit(code)
