"""Running examples: the build's side (``engine``: memory, cache, pool; ``pool``: the worker's handle;
``verdict``: a result from what a child recorded and how it ended; ``raises``: the claims about the errors
cells raise, judged on every result; ``cache``).

Everything that runs in the worker process and its forked children is in ``child``; this side
starts that worker and reads what it reports, and never runs an example itself.
"""
