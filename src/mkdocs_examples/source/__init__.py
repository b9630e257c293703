"""Reading what a site holds: the ``/// example`` blocks of its pages, and its example files as cells."""
