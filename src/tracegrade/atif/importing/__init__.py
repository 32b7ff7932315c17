"""Stage 6: other formats turned into ATIF trajectories (Who&When logs)."""
