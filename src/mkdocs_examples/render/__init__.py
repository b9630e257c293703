"""Markdown for a page: code, outputs, tracebacks, figures, provenance, repository links."""
