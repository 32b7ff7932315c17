"""Stage 4: the scoring engine, the tree maths that roll scores up, and the result records."""
