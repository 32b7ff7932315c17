from __future__ import annotations

import base64
from pathlib import Path

from tracegrade.render import figure_to_data_uri, new_figure, save_figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _figure():  # type: ignore[no-untyped-def]
    figure = new_figure(3, 2)
    figure.add_subplot().bar(["a", "b"], [0.4, 0.9])
    return figure


def test_save_figure_writes_a_png_and_creates_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "figures" / "scores.png"
    assert save_figure(_figure(), target) == target
    assert target.read_bytes().startswith(PNG_MAGIC)
    assert [p.name for p in target.parent.iterdir()] == ["scores.png"]  # no temporary file left behind


def test_save_figure_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "scores.png"
    target.write_bytes(b"old")
    save_figure(_figure(), target)
    assert target.read_bytes().startswith(PNG_MAGIC)


def test_data_uri_embeds_the_png() -> None:
    uri = figure_to_data_uri(_figure())
    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix)
    assert base64.b64decode(uri[len(prefix) :]).startswith(PNG_MAGIC)


def test_pyplot_figures_work_too(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots()
    axis.plot([0, 1], [1, 0])
    try:
        save_figure(figure, tmp_path / "line.png")
    finally:
        plt.close(figure)
    assert (tmp_path / "line.png").read_bytes().startswith(PNG_MAGIC)
