"""The embedded local judge: Gemma 3 270M on llama.cpp's server (the ``xllamacpp`` wheel), run by ``LocalJudge``.

``_runner`` runs in the caller's process; ``_server`` (with the chat template of ``_plain``) is the server's
own process (``python -m tracegrade.judge.local._server``). The public names are in :mod:`tracegrade.judge`.
"""
