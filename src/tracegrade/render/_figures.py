"""Figures: PNG files written atomically and data URIs for self-contained HTML (matplotlib, Agg)."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["figure_png", "figure_to_data_uri", "new_figure", "save_figure"]


def new_figure(width: float = 6.4, height: float = 4.0, *, dpi: int = 100) -> Figure:
    """A matplotlib figure drawn by the Agg backend, outside pyplot (no global state to close).

    Args:
        width: width in inches.
        height: height in inches.
        dpi: dots per inch of the PNG output.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def figure_png(fig: Figure) -> bytes:
    """The figure rendered as PNG bytes (Agg renderer, the figure's own dpi)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def save_figure(fig: Figure, path: Path) -> Path:
    """Write the figure to ``path`` as PNG atomically (a complete file or none) and return the path.

    The parent folder is created when missing. The figure is not closed: a pyplot figure is the
    caller's to close, a :func:`new_figure` figure needs no closing.
    """
    from tracegrade._io import write_atomic

    write_atomic(path, figure_png(fig))
    return path


def figure_to_data_uri(fig: Figure) -> str:
    """The figure as a ``data:image/png;base64,...`` URI for an ``<img src>`` in self-contained HTML."""
    return "data:image/png;base64," + base64.b64encode(figure_png(fig)).decode("ascii")
