"""The command-line interface: one typer app, thin commands over the library."""

from tracegrade.cli._app import app, dabench_main, main

__all__ = ["app", "dabench_main", "main"]
