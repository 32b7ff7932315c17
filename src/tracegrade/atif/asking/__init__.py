"""Stage 3: what the judge is shown and asked (evidence, prompts, questions) and how its replies are read."""
