"""Outputs made on other machines (a GPU): the recording format, and the GPU workflow's record, merge and shards."""
