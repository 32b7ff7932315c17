"""Stage 1: read a run folder: summary, traces in every variant, answers, into typed task records."""
