"""Outputs made on other machines (a GPU, another torch release): the recording format, and the workflows'
record, merge, shards and version matrix."""
