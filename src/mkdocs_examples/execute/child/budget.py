"""What an example may show in all: its cells' text and figures, against the options that bound them.

Every line and figure an example shows is copied into the pages that embed it, in each language, and
into its downloads and notebook views, figures as base64: a few figures of noise, which PNG cannot
compress, weigh megabytes in a page and ten times that in the site. ``max_output`` bounds one cell's
text; this bounds the example's. The runner checks each cell as it ends and stops the example at the
first one past a bound; the build checks the record again with the same :class:`Budget`
(``execute/verdict.py``), believing nothing of the example's own process. Every cell counts, shown
or not: what it printed is kept in the cache all the same.
"""

from __future__ import annotations

from mkdocs_examples.results import CellResult, Failure, Options, png_size


class Budget:
    """What an example's cells have shown so far, in the order they ran."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.text = 0  # bytes of text (UTF-8): outputs and tracebacks
        self.figures = 0  # bytes of PNG

    def spend(self, result: CellResult, line: int) -> Failure | None:
        """Count one cell's output (the cell at ``line``); a ``limit`` failure naming the bound it goes past."""
        options, why = self.options, None
        if options.max_figures and len(result.images) > options.max_figures:
            why = (
                f"this cell shows more than {options.max_figures} figures (figure {options.max_figures + 1} is one "
                "too many for the plugin option `max_figures`): show fewer, close those it does not show "
                "(plt.close()), or raise the option"
            )
        self.text += result.text_size()
        if why is None and options.max_output_bytes and self.text > options.max_output_bytes:
            why = (
                f"its cells' output adds up to {size(self.text)} by this cell, past the plugin option "
                f"`max_output_bytes` ({size(options.max_output_bytes)}): print less (a shape, a summary, a few "
                "rows), or raise the option"
            )
        for number, image in enumerate(result.images, 1):
            self.figures += png_size(image)
            if why is None and options.max_figures_bytes and self.figures > options.max_figures_bytes:
                why = (
                    f"figure {number} of this cell brings its figures to {size(self.figures)}, past the plugin "
                    f"option `max_figures_bytes` ({size(options.max_figures_bytes)}): draw fewer or smaller "
                    "figures (figsize, dpi), or raise the option"
                )
        return None if why is None else Failure("limit", result.cell, line, detail=why)


def size(count: int) -> str:
    """A number of bytes as a reader would say it: 4.2 MiB, 12 KiB, 80 bytes."""
    if count < 1024:
        return f"{count} bytes"
    return f"{count / (1 << 20):.1f} MiB" if count >= 1 << 20 else f"{count / 1024:.0f} KiB"
