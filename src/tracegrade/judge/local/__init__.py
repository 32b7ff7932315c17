"""The embedded local judge: Gemma 3 270M on llama-cpp-python's server, started and stopped by ``LocalJudge``.

``_runner`` runs in the caller's process; ``_server`` (with ``_plain`` and ``_sampling``) is the server's
own process (``python -m tracegrade.judge.local._server``). The public names are in :mod:`tracegrade.judge`.
"""
