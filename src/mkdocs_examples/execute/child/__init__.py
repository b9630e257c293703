"""What runs in the worker process and in each example's forked child: never MkDocs, Markdown or YAML.

``worker``: imports the heavy modules once, forks a child per example; ``runner``: runs one
example cell by cell; ``clean``: makes what it printed safe to show; ``sandbox``: what each
example's process enters before its first cell, from ``landlock`` (what it may read and write),
``namespaces`` (a network of its own, no capabilities) and ``processes`` (finding and ending
what it starts: cgroups, subreapers, process groups).
"""
