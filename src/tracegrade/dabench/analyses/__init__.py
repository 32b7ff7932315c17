"""Stage 4: run-level analyses: reconciliation, health, replays, auditor, comparison, ablation, research."""
