"""``tracegrade evalhub``: run an EvalHub job with the ATIF adapter, print the provider definition."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from tracegrade.cli._help import App
from tracegrade.errors import ConfigError

__all__ = ["evalhub_app"]

evalhub_app = App(
    name="evalhub",
    help="EvalHub integration: the ATIF framework adapter and its provider definition.",
    no_args_is_help=True,
)


@evalhub_app.command("run")
def run(
    job_spec: Annotated[
        Path | None,
        typer.Option(help="Job spec file (default: $EVALHUB_JOB_SPEC_PATH, or /meta/job.json in Kubernetes)."),
    ] = None,
) -> None:
    """Run one EvalHub benchmark job, as EvalHub does with python -m tracegrade.integrations.evalhub.

    Status and results go to the job's callback URL; failures are reported there as FAILED with a
    one-line reason, and the exit code says what happened.
    """
    if job_spec is not None:
        if not job_spec.is_file():
            raise ConfigError(f"--job-spec: {job_spec} is not a file")
        os.environ["EVALHUB_JOB_SPEC_PATH"] = str(job_spec.resolve())
    from tracegrade.integrations.evalhub import main

    raise typer.Exit(main())


@evalhub_app.command("provider-yaml")
def provider_yaml(
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")] = None,
    provider_id: Annotated[str, typer.Option(help="Provider id.")] = "atif",
    command: Annotated[
        str | None, typer.Option(help="Local-mode command (default: this Python running the adapter).")
    ] = None,
    image: Annotated[str | None, typer.Option(
        help="Container image for the Kubernetes runtime (default: a placeholder name to replace).")] = None,
    env: Annotated[list[str] | None, typer.Option("--env", help="NAME=VALUE for local-mode runs (repeatable).")] = None,
) -> None:
    """Print the EvalHub provider definition (providers/atif.yaml) for this installation."""
    from tracegrade.integrations.evalhub import DEFAULT_IMAGE, PLACEHOLDER_NOTE
    from tracegrade.integrations.evalhub import provider_yaml as render

    if image is None:
        typer.echo(f"note: {PLACEHOLDER_NOTE}", err=True)
    text = render(command=command, image=image or DEFAULT_IMAGE, env=_env(env or []), provider_id=provider_id)
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")


def _env(pairs: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--env: expected NAME=VALUE, got {pair!r}")
        values[name.strip()] = value
    return values
