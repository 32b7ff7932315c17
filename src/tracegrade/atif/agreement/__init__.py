"""Stage 5: judge quality: agreement with human labels and failure localisation."""
