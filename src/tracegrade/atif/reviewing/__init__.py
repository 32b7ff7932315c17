"""Stage 9: a person checks the judge: the review queue, labels appended as they are given, the review page."""
