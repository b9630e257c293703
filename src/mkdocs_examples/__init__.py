"""Execute Python examples at build time and put their real output into MkDocs pages."""

__version__ = "0.1.0"
