"""Which machine produced an output, in words: the short label beside each output, and the page's one block
that says each of those environments in a sentence.

Beside each output a page shows a short label, the environment's one name (:func:`name`: ``torch 2.13.0``,
``torch 2.11.0 · H200 · Python 3.12``); once per page, at its end, :class:`Sources` says of every
environment whose outputs the page shows what printed them (:func:`described`: ``printed on a CPU with
PyTorch 2.4.1+cu121 (Python 3.11.7)``, and the date of a recording), in the words a notebook's note on a GPU
recording uses too; :func:`in_words` gives the parts of such sentences. Every value in these lines comes from a
recording or from the example's own process, so from whoever wrote them: each character that HTML
or Markdown reads is written as a character reference (``{onerror=...}`` in a GPU's name is text,
never an attribute).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from mkdocs_examples.recordings.store import python_minor, release
from mkdocs_examples.texts import text

BUILD = "build"  # the name of the build's own environment; a recorded one is named by its folder


def device_label(env: dict[str, str]) -> str:
    """The device an output was made on, as a tab label: ``CPU``, ``CUDA``, ``MPS``."""
    device = env.get("device", "?")
    # a tab's label is read as Markdown: a device of another name keeps its letters and digits only
    return {"cpu": "CPU", "cuda": "CUDA", "mps": "MPS"}.get(device) or re.sub(r"[^\w.+-]", "", device)[:20] or "?"


def in_words(env: dict[str, str], lang: str, *, exact: bool = False) -> dict[str, str]:
    """The parts of a sentence about ``env`` (texts.py: ``notebook.*``, ``words.*``): ``torch`` (``2.13.0``,
    its build left out), ``python`` (``3.11``), ``device`` (``a CPU``, or the GPU's name), ``gpu`` and ``cuda``.
    ``exact``: torch and Python as the environment reported them (``2.13.0+cpu``, ``3.11.7``)."""
    words = text(lang)
    gpu = env.get("gpu") or words["words.gpu"]
    torch, python = env.get("torch", "?"), env.get("python", "?")
    return {
        "device": words["words.cpu"] if env.get("device", "cpu") == "cpu" else gpu,
        "torch": torch if exact else torch.split("+")[0],
        "python": python if exact else ".".join(python.split(".")[:2]),
        "gpu": gpu,
        "cuda": env.get("cuda") or "?",
    }


def described(env: dict[str, str], lang: str) -> str:
    """What printed an environment's outputs, in words: ``printed on NVIDIA H100 80GB HBM3 with PyTorch
    2.11.0+cu130 and CUDA 13.0 (Python 3.12.3)``; an environment without torch names its device and Python. A
    release's wheel from PyPI is a CUDA build (``2.4.1+cu121``): run on a CPU, the sentence says so, as its
    output does ("built with CUDA: 12.1")."""
    key = "words.what" if "torch" not in env else "words.what.cuda" if env.get("cuda") else "words.what.torch"
    words = in_words(env, lang, exact=True)
    if key == "words.what.torch" and cuda_build_without_gpu(env):
        key, words["cuda"] = "words.what.wheel", built_for(env.get("torch", ""))
    return text(lang)[key].format(**words)


def built_for(torch: str) -> str:
    """The CUDA a build of torch is for, from its version: ``2.4.1+cu121`` is a build for CUDA ``12.1``; ``""``
    for another build (``2.13.0+cpu``)."""
    wheel = _CUDA_WHEEL.search(torch)
    return f"{wheel[1]}.{wheel[2]}" if wheel else ""


_CUDA_WHEEL = re.compile(r"\+cu(\d+)(\d)$")  # 2.4.1+cu121: a build for CUDA 12.1


# What a GPU's marketing name adds to its model: ``NVIDIA H100 80GB HBM3`` is an ``H100``
_GPU_NOISE = re.compile(r"^(?:NVIDIA|AMD)\s+|\s+(?:\d+\s*GB|HBM\d*e?|PCIe|SXM\d*|NVL)\b", re.I)


def device_name(env: dict[str, str]) -> str:
    """The device of ``env`` as a reader names it: the GPU's model (``H200``) where the run names one, else
    :func:`device_label` (``CPU``, ``CUDA``)."""
    if env.get("gpu"):
        return (_GPU_NOISE.sub("", env["gpu"]).strip() or env["gpu"])[:40]
    return device_label(env)


def cuda_build_without_gpu(env: dict[str, str]) -> bool:
    """Whether ``env`` ran a CUDA build of torch (``2.4.1+cu121``, PyPI's wheel on Linux) on a CPU: the
    release recordings do, and print what such a machine prints (``torch.version.cuda`` is ``12.1``, and a
    request for a GPU says no NVIDIA driver was found), not what a CPU build prints."""
    return env.get("device", "cpu") == "cpu" and bool(built_for(env.get("torch", "")))


def parts(env: dict[str, str], site: dict[str, str], lang: str, *, many: bool = False) -> list[str]:
    """What :func:`name` says of ``env`` after its torch release: what differs from the site's build (``site``),
    its device (:func:`device_name`), its Python and its build of torch (``CUDA build, no GPU`` beside a build
    of CPU builds); ``many``: said of several releases at once (``CUDA builds without a GPU``)."""
    named = []
    if device_name(env) != device_name(site):
        named.append(device_name(env))
    if python_minor(env.get("python", "?")) != python_minor(site.get("python", "?")):
        named.append(f"Python {python_minor(env.get('python', '?'))}")
    if cuda_build_without_gpu(env) and not cuda_build_without_gpu(site):
        named.append(text(lang)["words.nogpu.many" if many else "words.nogpu"])
    return named


def name(env: dict[str, str], site: dict[str, str], *, lang: str) -> str:
    """The one name of an environment, wherever the site names it: the label beside an output, a folded note's
    title, the page's list of sources, the torch picker's choices, the error index and the changes page. Its
    torch release, then what differs from the site's build (``site``): its device (:func:`device_name`), its
    Python and its build of torch (:func:`parts`). On a site built on a CPU with a CPU build of torch and Python
    3.11: ``torch 2.13.0``, ``torch 2.11.0 · Python 3.12``, ``torch 2.11.0 · H200 · Python 3.12``, ``torch 2.4.1 ·
    CUDA build, no GPU`` (in the reader's language, ``lang``). Short, so that a row of a phone holds two notes'
    titles; two runs of one release differ in what the name says. An environment without torch is named by its
    device and Python."""
    if "torch" not in env:
        return f"{device_name(env)} · Python {python_minor(env.get('python', '?'))}"
    return " · ".join([f"torch {release(env['torch'])}", *parts(env, site, lang)])


@dataclass(frozen=True)
class Source:
    """An environment whose outputs a page shows: ``name`` (:data:`BUILD`, or its recordings' folder)."""

    name: str
    env: dict[str, str]
    date: str | None  # of a recording; None for the build's own outputs
    unverified: bool = False  # a recording no trusted key signs (recordings/attest.py): its labels say so


@dataclass
class Sources:
    """The environments a page's outputs come from, each once: the build's own first, then the CPU's and the
    other devices', oldest torch release first; a folder's recordings made on different days are listed once
    per day, so that each date is one they had."""

    found: dict[tuple[str, str | None, bool], Source] = field(default_factory=dict)
    lang: str = "en"  # of the labels beside outputs (an unverified recording's say so)
    # the build's environment, against which :func:`name` names (as the picker does: publish/picker.py); None: that
    # of the build's own outputs on the page
    site: dict[str, str] | None = None

    def name(self, env: dict[str, str]) -> str:
        """The name of ``env`` (:func:`name`) against the build's environment."""
        return name(env, self.built, lang=self.lang)

    @property
    def built(self) -> dict[str, str]:
        """The build's environment, against which environments are named."""
        if self.site is not None:
            return self.site
        return next((s.env for s in self.found.values() if s.name == BUILD), {})

    def _short(self, source: Source) -> str:
        """The label of ``source``, saying "unverified" where it is."""
        label = self.name(source.env)
        return text(self.lang)["unverified"].format(label=label) if source.unverified else label

    def label(self, source: Source, *, example: str | None = None, cell: int | None = None) -> str:
        """The short label beside an output of ``source``. With ``example`` and ``cell``, the picker
        (assets/mkdocs_examples_picker.js) finds the output by it and may show another environment's."""
        self.found.setdefault((source.name, source.date, source.unverified), source)
        data = ""
        if example is not None and cell is not None:
            device = source.env.get("device", "?")
            values = {"env": source.name, "device": device, "example": example, "cell": str(cell)}
            data = "".join(f' data-mx-{key}="{inline(value)}"' for key, value in values.items())
        return f'<small class="mx-provenance"{data} data-search-exclude>{inline(self._short(source))}</small>'

    def labels(self, sources: list[Source], *, label: str, shows: Source) -> str:
        """The label of a folded note, ``label``, for outputs several environments printed alike (each its own
        version aside), of which the note shows ``shows``'s."""
        for source in sources:
            self.found.setdefault((source.name, source.date, source.unverified), source)
        # the picker finds here the output a picked environment printed, which it shows in the cell's place where
        # it is the one the note shows
        envs = inline(" ".join(dict.fromkeys(s.name for s in sources)))
        return (f'<small class="mx-provenance" data-mx-envs="{envs}" data-mx-shows="{inline(shows.name)}" '
                f"data-search-exclude>{inline(label)}</small>")

    def block(self, lang: str) -> str:
        """The page's one paragraph on where its outputs come from; empty for a page that shows none."""
        if not self.found:
            return ""
        words = text(lang)
        items = []
        for source in sorted(self.found.values(), key=_order):
            key = "sources.built" if source.date is None else "sources.recorded"
            key = "sources.unverified" if source.unverified else key
            line = words[key].format(label=self.name(source.env), what=described(source.env, lang), date=source.date)
            items.append(f'<li data-mx-source="{inline(source.name)}">{inline(line)}</li>')  # the picker adds its own
        return (
            f'\n\n<div class="mx-sources" data-search-exclude>\n<p>{inline(words["sources"])}</p>\n'
            f"<ul>\n{chr(10).join(items)}\n</ul>\n</div>\n"
        )


def _order(source: Source) -> tuple:
    """Where ``source`` comes in a page's list: the build's own, then by device (the CPU first), release, Python,
    date; whatever order the page's outputs named them in."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", source.env.get("torch", "").split("+")[0])[:3])
    python = tuple(int(n) for n in re.findall(r"\d+", source.env.get("python", ""))[:3])
    return source.name != BUILD, source.env.get("device", "?") != "cpu", source.env.get("device", "?"), numbers, \
        python, source.date or "", source.unverified, source.name


# Every character Markdown gives a meaning to within a line, as a numeric character reference: Markdown passes
# these through as they are, and the browser shows the characters. (Raw HTML is no shelter: in a
# tab of content, indented, Markdown reads inside it.)
_MARKDOWN = str.maketrans({c: f"&#{ord(c)};" for c in "!\"$'()*<>[\\]_`{|}~"})


def inline(line: str) -> str:
    """``line`` as text that neither HTML nor Markdown (attr_list and all) reads anything into."""
    return html.escape(line, quote=False).translate(_MARKDOWN)
