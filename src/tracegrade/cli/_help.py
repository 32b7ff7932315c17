"""Help pages of every command, readable at 80 columns and wider: the one help renderer of the CLI.

Every command group is an :class:`App`; its commands then render their help here: usage lines in
``PATHS...`` form, switches without a value type, option names never cut, descriptions reflowed to the
terminal, and the option table stacked (help under each option) when the terminal is too narrow for columns.

typer's help styles (``typer.rich_utils``) are imported by the functions that print help: the module imports
rich's Markdown renderer, a tenth of a second that every other command would pay at start-up.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

import typer
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from tracegrade.errors import Interrupted

__all__ = ["NOTHING_KEPT", "App", "HelpCommand", "HelpGroup", "describe_options", "reflow"]

NOTHING_KEPT = "nothing was kept (stopped before any result was written)"
"""What a command interrupted before it kept any work says."""

_MIN_HELP_WIDTH = 30
"""Narrower than this, option help goes under the option instead of beside it."""
F = TypeVar("F", bound=Callable[..., Any])
_BOOLEAN_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0"})


class App(typer.Typer):
    """A typer app whose groups and commands render their help with this module."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", HelpGroup)
        kwargs.setdefault("add_completion", False)
        kwargs.setdefault("pretty_exceptions_enable", False)
        super().__init__(**kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        kwargs.setdefault("cls", HelpCommand)
        decorate: Callable[[F], F] = super().command(*args, **kwargs)
        return decorate


class HelpCommand(TyperCommand):
    """A command with this module's help page and usage line; a switch given a value is a usage error.

    Ctrl-C that reaches it is :class:`~tracegrade.errors.Interrupted` (typer would exit 130 silently).
    """

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted(NOTHING_KEPT) from None

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return usage_pieces(self, ctx)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        _refuse_switch_values(self.params, args, ctx)
        return super().parse_args(ctx, args)


class HelpGroup(TyperGroup):
    """A command group with this module's help page."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        print_help(self, ctx)


def usage_pieces(command: Any, ctx: Any) -> list[str]:
    """``[OPTIONS]`` then each argument as ``NAME``, ``NAME...`` or ``[NAME]``."""
    pieces = [command.options_metavar] if command.options_metavar else []
    for param in command.get_params(ctx):
        if isinstance(param, TyperArgument) and not param.hidden:
            pieces.append(_argument_name(param) if param.required else f"[{_argument_name(param)}]")
    return pieces


def _argument_name(param: TyperArgument) -> str:
    name = (param.metavar or param.name or "").upper()
    return name + ("..." if param.nargs != 1 else "")


def _refuse_switch_values(params: Iterable[Any], args: Sequence[str], ctx: Any) -> None:
    """``--no-cache true`` names the switch instead of reading ``true`` as an argument."""
    switches = {opt: p for p in params if isinstance(p, TyperOption) and p.is_flag
                for opt in (*p.opts, *p.secondary_opts)}
    for token, following in itertools.pairwise(args):
        if token == "--":
            return
        if token in switches and following.lower() in _BOOLEAN_WORDS and not os.path.exists(following):
            raise typer.BadParameter(
                f"{token} is a switch and takes no value: give {token} alone, without {following!r}",
                ctx=ctx, param=switches[token],
            )


def reflow(text: str) -> list[str]:
    """The paragraphs of a docstring, each on one line (a paragraph starting with a backspace keeps its lines)."""
    import inspect

    paragraphs = inspect.cleandoc(text).partition("\f")[0].split("\n\n")
    return [p.strip("\b\n") if p.startswith("\b") else " ".join(p.split()) for p in paragraphs if p.strip()]


@dataclass(frozen=True)
class OptionRow:
    """One parameter as the help page shows it."""

    required: bool
    names: str
    short: str
    kind: str
    help: str
    notes: tuple[str, ...]
    """Range, default and required, each as ``[...]``."""
    switch: bool


def describe_options(command: Any, ctx: Any) -> dict[str, list[OptionRow]]:
    """Panel title → the rows of the parameters shown in it (arguments first, then the default panel)."""
    from typer import rich_utils as styles
    panels: dict[str, list[OptionRow]] = {styles.ARGUMENTS_PANEL_TITLE: [], styles.OPTIONS_PANEL_TITLE: []}
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False) or not isinstance(param, TyperArgument | TyperOption):
            continue
        default = styles.ARGUMENTS_PANEL_TITLE if isinstance(param, TyperArgument) else styles.OPTIONS_PANEL_TITLE
        panels.setdefault(getattr(param, "rich_help_panel", None) or default, []).append(_row(param, ctx))
    return {title: rows for title, rows in panels.items() if rows}


def _row(param: TyperArgument | TyperOption, ctx: Any) -> OptionRow:
    switch = isinstance(param, TyperOption) and param.is_flag
    if isinstance(param, TyperArgument):
        names, short = _argument_name(param), ""
    else:
        longs = [o for o in param.opts if o.startswith("--")]
        negatives = [o for o in param.secondary_opts if o.startswith("--")]
        names = " / ".join(filter(None, (", ".join(longs), ", ".join(negatives))))
        short = ", ".join(o for o in (*param.opts, *param.secondary_opts) if not o.startswith("--"))
    kind = "" if switch else (param.metavar or _element_type(param.display_type(ctx)))
    return OptionRow(param.required, names, short, kind, " ".join(reflow(param.help or "")), _notes(param), switch)


def _element_type(kind: str) -> str:
    """``<list[Path]>`` as ``<path>`` (``PATHS...`` says it repeats), ``<int range>`` as ``<int>`` (see the help)."""
    if kind.startswith("<list[") and kind.endswith("]>"):
        return f"<{kind[6:-2].lower()}>"
    return kind.removesuffix(" range>") + ">" if kind.endswith(" range>") else kind


def _notes(param: TyperArgument | TyperOption) -> tuple[str, ...]:
    notes = []
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None or high is not None:
        notes.append("[" + "<=".join(str(v) for v in (low, "x", high) if v is not None) + "]")
    default = _default_text(param)
    if default:
        notes.append(f"[default: {default}]")
    if param.required:
        notes.append("[required]")
    return tuple(notes)


def _default_text(param: TyperArgument | TyperOption) -> str:
    """The default as the user would type it; nothing for an unset value or a switch that is off."""
    default, show = param.default, getattr(param, "show_default", True)
    if isinstance(show, str):
        return show
    if show is False or default is None or param.required or callable(default):
        return ""
    if isinstance(param, TyperOption) and param.is_flag:
        return (param.opts[0] if default else (param.secondary_opts or [""])[0]) if param.secondary_opts else ""
    if isinstance(default, list | tuple):
        return ", ".join(str(v.value if isinstance(v, Enum) else v) for v in default)
    return str(default.value if isinstance(default, Enum) else default)


def print_help(command: Any, ctx: Any, console: Console | None = None) -> None:
    """Print the help page of ``command``: usage, description, parameter panels, subcommands, epilog."""
    from typer import rich_utils as styles
    console = console or Console(highlight=False)
    console.print(Padding(Text(command.get_usage(ctx), style=styles.STYLE_USAGE_COMMAND), 1))
    paragraphs = reflow(command.help or "")
    for index, paragraph in enumerate(paragraphs):
        style = styles.STYLE_HELPTEXT_FIRST_LINE if index == 0 else styles.STYLE_HELPTEXT
        console.print(Padding(Text(paragraph, style=style), (0, 1, 1, 1)))
    panels = describe_options(command, ctx)
    widths = _widths([row for rows in panels.values() for row in rows])
    stacked = console.width - 4 - sum(widths) - 2 * len(widths) < _MIN_HELP_WIDTH
    for title, rows in panels.items():
        body = _stacked(rows) if stacked else _table(rows, widths)
        console.print(Panel(body, title=title, title_align="left", border_style=styles.STYLE_OPTIONS_PANEL_BORDER))
    if isinstance(command, TyperGroup):
        _print_commands(command, ctx, console)
    for paragraph in reflow(command.epilog or ""):
        console.print(Padding(Text(paragraph), 1))


def _widths(rows: list[OptionRow]) -> tuple[int, int, int, int]:
    return (
        max((1 for row in rows if row.required), default=0),
        max((len(row.names) for row in rows), default=0),
        max((len(row.short) for row in rows), default=0),
        max((len(row.kind) for row in rows), default=0),
    )


def _names(row: OptionRow) -> Text:
    from typer import rich_utils as styles
    style = styles.STYLE_SWITCH if row.switch else styles.STYLE_OPTION
    return Text(row.names, style=style)


def _table(rows: list[OptionRow], widths: tuple[int, int, int, int]) -> Table:
    from typer import rich_utils as styles
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1), expand=True)
    for width in widths:
        if width:
            table.add_column(width=width, no_wrap=True)
    table.add_column(ratio=1, overflow="fold")
    for row in rows:
        cells = [Text("*" if row.required else "", style=styles.STYLE_REQUIRED_SHORT), _names(row),
                 Text(row.short, style=styles.STYLE_SWITCH), Text(row.kind, style=styles.STYLE_TYPES)]
        table.add_row(*(cell for cell, width in zip(cells, widths, strict=True) if width), _help_text(row))
    return table


def _stacked(rows: list[OptionRow]) -> Group:
    """Each parameter on its own line (names, short name, type), its help indented under it."""
    from typer import rich_utils as styles
    lines: list[RenderableType] = []
    for row in rows:
        head = Text("* " if row.required else "", style=styles.STYLE_REQUIRED_SHORT)
        head.append_text(_names(row))
        if row.short:
            head.append(", ").append(row.short, style=styles.STYLE_SWITCH)
        if row.kind:
            head.append(" ").append(row.kind, style=styles.STYLE_TYPES)
        head.overflow = "fold"
        lines.extend([head, Padding(_help_text(row), (0, 0, 0, 4))])
    return Group(*lines)


def _help_text(row: OptionRow) -> Text:
    from typer import rich_utils as styles
    text = Text(row.help, style=styles.STYLE_OPTION_HELP, overflow="fold")
    for note in row.notes:
        style = styles.STYLE_REQUIRED_LONG if note == "[required]" else styles.STYLE_OPTION_DEFAULT
        text.append(" " if text.plain else "").append(note, style=style)
    return text


def _print_commands(group: TyperGroup, ctx: Any, console: Console) -> None:
    from typer import rich_utils as styles
    commands = [(name, group.get_command(ctx, name)) for name in group.list_commands(ctx)]
    shown = [(name, command) for name, command in commands if command is not None and not command.hidden]
    if not shown:
        return
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1), expand=True)
    width = max(len(name) for name, _ in shown)
    table.add_column(width=width, no_wrap=True, style=styles.STYLE_COMMANDS_TABLE_FIRST_COLUMN)
    table.add_column(ratio=1)
    for name, command in shown:
        table.add_row(name, Text((reflow(command.help or "") or [""])[0]))
    console.print(Panel(table, title=styles.COMMANDS_PANEL_TITLE, title_align="left",
                        border_style=styles.STYLE_COMMANDS_PANEL_BORDER))
