"""Stage 7: run folders: artifacts, JSON Schemas, the HTML report, merging shards."""
