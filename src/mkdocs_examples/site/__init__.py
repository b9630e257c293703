"""The site plugins: what a site of executed examples wants of its pages, each a MkDocs plugin of its own,
turned on in `plugins:` after the examples plugin (src/mkdocs_examples/docs/site.md: "The site plugins")."""
