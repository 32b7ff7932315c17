"""Stage 5: the report: sections assembled, then drawn for the terminal, HTML, figures and paper tables."""
