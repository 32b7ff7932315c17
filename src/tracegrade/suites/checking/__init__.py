"""Stage 2: how every check of an attempt comes out: the comparison registry, owners, outcomes, metrics."""
