"""Stage 5: failure localisation: which agent and which step made a failed run fail."""
