"""Stage 1: a dataset read and checked: strict JSON, the manifest, suites, cases, gold and their rules."""
