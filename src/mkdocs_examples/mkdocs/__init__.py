"""The MkDocs adapter, the one part of the engine that imports MkDocs: its events (``plugin``), the typed options
and the Markdown extensions it needs (``config``), the languages of a build (``i18n``), and MkDocs' pages, files
and templates (``pages``). The rest of the package takes plain values and serves without MkDocs (README: "Without
MkDocs")."""
