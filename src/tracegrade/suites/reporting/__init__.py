"""Stage 3: the report: summaries with honest denominators, comparison of two reports, terminal and HTML."""
