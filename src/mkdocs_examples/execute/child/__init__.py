"""What runs in the worker process and in each example's forked child: never MkDocs, Markdown or YAML.

``worker``: imports the heavy modules once, forks a child per example; ``runner``: runs one
example cell by cell; ``clean``: makes what it printed safe to show; ``sandbox``: Landlock and
process control, so that an example cannot change the project or outlive the build.
"""
