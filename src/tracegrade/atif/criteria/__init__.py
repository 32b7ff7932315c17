"""Stage 2: where each trajectory's criteria come from (auto, benchmark, reference, custom) and how they resolve."""
