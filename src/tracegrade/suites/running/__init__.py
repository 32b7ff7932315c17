"""Stage 4: running a dataset against the system under test (or recorded results), resumably; replay."""
