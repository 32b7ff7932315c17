"""The ATIF reference models (eval-hub-sdk's ``evalhub.models.atif``), imported without the SDK's client.

Importing ``evalhub.models.atif`` the usual way first runs the ``evalhub`` and ``evalhub.models`` package
initialisers, which import the SDK's HTTP client (httpx, click) and its API models, which
``validate`` and ``judge`` never use. The ATIF subpackage imports only itself and pydantic, so its parent
packages are registered first as *deferred* modules: real module objects made from their own specs, whose
initialiser runs the first time anyone asks them for a name they do not hold yet (``from evalhub import X``,
``evalhub.adapter`` importing ``..models``). Code that uses the rest of the SDK therefore sees the complete
packages, and the ATIF classes are the same objects whichever way they were imported.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any


def _defer(name: str) -> None:
    """Put package ``name`` in ``sys.modules`` with its initialiser deferred to its first missing name."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return  # not installed, or not a package: the import below reports it as usual
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def finish(attribute: str) -> Any:
        module.__dict__.pop("__getattr__", None)
        try:
            loader.exec_module(module)
        except BaseException:
            sys.modules.pop(name, None)  # as a failed import leaves it
            raise
        return getattr(module, attribute)

    module.__dict__["__getattr__"] = finish
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)  # as the import system binds a submodule


_defer("evalhub")
_defer("evalhub.models")

from evalhub.models.atif import (  # noqa: E402  (after the parents are registered)
    Agent,
    ContentPart,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    SubagentTrajectoryRef,
    Trajectory,
)

__all__ = ["Agent", "ContentPart", "Metrics", "Observation", "ObservationResult", "Step", "SubagentTrajectoryRef",
           "Trajectory"]
