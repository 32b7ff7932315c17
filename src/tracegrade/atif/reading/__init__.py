"""Stage 1: read ATIF files into validated, immutable trajectory trees (strict JSON, safe references, limits)."""
