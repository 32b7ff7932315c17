"""Stage 2: the metric families and their registry: every column of task_metrics from one task record."""
