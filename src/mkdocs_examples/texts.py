"""Every text the engine writes into a site, in each language it speaks: one table.

A key names where the text appears (``index.summary``: the error index; ``view.title``: a
notebook view). :func:`text` gives a language's table, English for a language it does not
know. Imports nothing of ours: the render and publish modules and the plugin read it.
"""

from __future__ import annotations

DEFAULT = "en"

TEXT: dict[str, dict[str, str]] = {
    "en": {
        # render: under and around an example's code
        "output": "Output",
        "exception": "Raised (as intended)",
        "figure": "Figure",
        "figure.of": "{alt} (figure {n} of {count})",  # the alt text of one of a cell's figures (alt=)
        "cut": "… {n:,} more characters cut (this page shows at most {limit:,} per cell)",
        "cuda": "This cell runs only on a CUDA GPU. Its output is not shown here: this version of the code has "
        "not been run on a GPU yet.",
        "stale": "This cell runs only on a CUDA GPU. Its output is not shown here: the code has changed since "
        "it last ran on {gpu} ({date}).",
        "module": "This cell needs {module}, which the machine that built the site does not have. Its output is not "
        "shown here: no recorded environment with {module} has run this version of the code yet.",
        # render: the page's one block on where its outputs come from (each output has a short label)
        "sources": "Where the outputs on this page come from:",
        "sources.built": "{label}: {what}, when this site was built.",
        "sources.recorded": "{label}: {what}, recorded on {date}.",
        # a recording no trusted key signs (recordings/attest.py): a strict build refuses it, others label it
        "unverified": "{label} · unverified",
        "sources.unverified": "{label}: said to be {what}, recorded on {date}, but unverified: no key this site "
        "trusts signs it, so nothing shows that this machine printed it.",
        "prints": "{what} prints",
        "print": "{what} print",
        # a folded note of outputs the same but for the versions each environment prints of itself
        "versions.own": "{label}; the others print the same, each with its own version",
        "checked": "Checked on torch {releases}{count}.",
        "checked.count": " ({n} releases)",
        "checked.gpu": "Checked on {device} with torch {releases} too.",
        "checked.module": "The cells that need {module} were checked on torch {releases}: the build's torch {here} "
        "cannot import it.",
        "checked.module.none": "The cells that need {module} have not been checked yet: the build's torch {here} "
        "cannot import it, and no recording has run them.",
        "differ.on": "Outputs differ on torch {releases}: see the notes under them.",
        "and": "and",
        "sep": ", ",  # between items of a list in a sentence
        "gap": " ",  # between two sentences
        # a check that fails on some release, for readers: what differs, linked to the cell (render/checks.py)
        "claim": "{claim}: true on {range}.",
        "claim.not": "{claim}: true on {range}, not on torch {releases}.",
        "claim.unsaid": "One claim of this page",  # a check without claim=
        "check.link": "a check of this page",
        "check.fails": "On torch {releases}, {check} fails: what the page shows may not hold there.",
        "check.since": "On torch {releases}, {check} fails: what the page shows holds from torch {release} on.",
        # ... and folded below it, for contributors: the file, the line, the builds and what the check said
        "detail.title": "For contributors",
        "detail.where": "{example}, line {line}",
        "detail.failure": "fails on torch {builds} ({message})",
        "detail.declared": "{where}, {holds}: the check {failures}.",
        "detail.declared.none": "{where}, {holds}: every recorded release passes the check.",
        "detail.fails": "{where}: the check {failures}, and no holds= declares it.",
        # a check's declared range (source/holds.py), beside the claim and in the prose
        "holds.note": "The claim checked here holds on {range}.",
        "holds.since": "torch {release} and later",
        "holds.until": "torch {release} and earlier",
        "holds.before": "torch releases before {release}",
        "holds.between": "torch {since} to {last}",
        "holds.between.before": "torch {since} and later releases before {until}",
        "holds.only": "torch {release} only",
        "holds.but": "{range}, but not {releases}",
        "holds.but.only": "every torch release but {releases}",
        "failed": "This example failed to build",
        # render: the take-away line under an example's first block
        "download": "Take it away:",
        "script": "script (.py)",
        "notebook": "notebook with these outputs (.ipynb)",
        "view": "notebook view",
        "colab": "open in Colab",
        # the torch picker in the header (assets/mkdocs_examples_picker.js, publish/picker.py)
        "picker.label": "Outputs of torch",
        # the build's own release, shown by default: the one the text is written about (the picker's comment says why)
        "picker.built": "{release} (default: the text's)",
        "picker.unrecorded": "{label} (not recorded on {device} with torch {release})",
        "picker.missing": "{label} (no output of this cell recorded with {other})",
        "picker.unverified": "{label} · unverified",
        # above a picked release's output where the check of its cell fails on that release
        "picker.differs.holds": "This check holds on {range}; torch {release} printed:",
        "picker.differs": "This check fails on torch {release}, which printed:",
        # ... where the cell itself raised there: what it printed before, if anything, follows
        "picker.raised.holds": "This check holds on {range}; torch {release} raised {error} here",
        "picker.raised": "This check fails on torch {release}, which raised {error} here",
        # ... in the words of its claim= where it has one
        "picker.claim.holds": "{claim}: true on {range}, not on torch {release}, which printed:",
        "picker.claim": "{claim}: not true on torch {release}, which printed:",
        "picker.claim.raised.holds": "{claim}: true on {range}, not on torch {release}, which raised {error} here",
        "picker.claim.raised": "{claim}: not true on torch {release}, which raised {error} here",
        "picker.raised.after": ", after printing:",
        "picker.raised.end": ".",
        "picker.stopped": "{label} (torch {release} stopped at a check before this cell: no output of it)",
        "picker.source": "{label}: {what}.",
        # publish: the error index
        "index.summary": "{errors} distinct errors, shown on {pages} pages.",
        "index.other": "Other",
        "index.no-message": "raised with no message",
        "index.quoted": "quoted from {project}'s source",
        "index.quoted.release": "quoted from the source of {project} {releases}",
        "index.quoted.link": "quoted",
        "index.device": "{releases} on {device}",
        # publish: a `quoted-error` block of a page
        "quoted.title": "Quoted from {project}'s source, not an output",
        "quoted.commit": "(commit {commit})",
        # true of a message some recorded release raised too: the box itself shows no run's output
        "quoted.from": "The message as {source} of {project} {release} words it: a quotation from the source, "
        "not a recording.",
        # publish: the page "What changed between torch releases"
        "changes.summary": "Compared with torch {torch} (Python {python}), whose outputs the pages show by default, "
        "once noise such as a warning's file:line is taken out.",
        "changes.none": "No other torch release has been recorded on this site's device yet.",
        "changes.compared": "Compared: torch {releases} ({n} releases), each recorded on this site's device.",
        "changes.same": "Every output and every check of torch {releases} is the same as the pages show by default.",
        "changes.python": "Recorded under Python {python}, not this site's: torch {releases}.",
        "changes.uninstallable": "torch {release} cannot be installed on Python {python} ({platform}), so it has no "
        "recordings here. pip said: {reason}",
        "changes.cell": "cell",
        # the behaviour changes at the top: the claim of each check that holds on some releases (source/holds.py)
        "changes.behaviour": "What changed in behaviour",
        "changes.starts": "{claim} ({page})",
        "changes.stops": "No longer true: {claim} ({page})",
        "changes.breaks": "Not true in this release: {claim} ({page})",
        "changes.again": "True again: {claim} ({page})",
        "changes.unsaid": "one claim of this page",
        "changes.overview": "In short",
        "changes.by_page": "Page by page",
        "changes.by_release": "What each release changes in the outputs, against the release before it:",
        "changes.release": "**torch {release}**: outputs change on {pages}",
        "changes.pages": "{n} pages",
        "changes.pages.one": "1 page",
        "changes.outputs": " ({n} outputs)",
        "changes.tips": "**Tips that do not hold on every release**: {pages}",
        "changes.page.cells": "{n} outputs change",
        "changes.page.cells.one": "1 output changes",
        "changes.page.tip": "the tip: {when}",
        "changes.page.sep": "; ",
        "changes.page.open": "Open the page: {page}",
        "changes.page.line": "**{page}**: {said}",
        "changes.tip": "{page}: {when}",
        "changes.before": "not before torch {release}",
        "changes.from": "not from torch {release} on",
        "changes.on": "not on torch {releases}",
        "changes.cell.summary": "`{cell}` changes in torch {releases}",
        "changes.step": "From torch {old} to {new}:",
        "changes.check": "{when}: the check {code} fails ({message}, line {line} of `{example}`).",
        "changes.check.nocode": "{when}: a check fails ({message}, line {line} of `{example}`).",
        # publish: a notebook view
        "view.title": "{title}: the notebook",
        "view.description": "{title}: the example as a notebook, with the outputs the page shows.",
        "view.back": "Back to the page",
        # publish: the notes of a notebook (a view's, or the one downloaded)
        "notebook.built": "Outputs from PyTorch {torch} on {device} (Python {python}), when this site was built; "
        "a note under a cell says where its output comes from otherwise.",
        "notebook.recorded": "This cell's output was {what}, recorded on {date}: the machine that built the site "
        "has no GPU.",
        "words.gpu": "a GPU",
        "words.cpu": "a CPU",
        # in an environment's name: a CUDA build of torch (PyPI's wheel on Linux) run on a machine without a GPU
        "words.nogpu": "CUDA build, no GPU",
        "words.nogpu.many": "CUDA builds without a GPU",
        # what printed an environment's outputs (render/provenance.py: described)
        "words.what.torch": "printed on {device} with PyTorch {torch} (Python {python})",
        "words.what.cuda": "printed on {device} with PyTorch {torch} and CUDA {cuda} (Python {python})",
        # a release's wheel from PyPI is built for CUDA ("2.4.1+cu121"), and run here without a GPU
        "words.what.wheel": "printed on {device} with PyTorch {torch}, a build for CUDA {cuda} run without a GPU "
        "(Python {python})",
        "words.what": "printed on {device} with Python {python}",
        "notebook.cuda": "This cell needs a CUDA GPU; the machine that built the site has none.",
        "notebook.module": "This cell needs {module}; the machine that built the site does not have it.",
        # what a CUDA cell of a downloaded notebook prints where there is no GPU, before the recorded output
        "notebook.gpu.printed": "No CUDA GPU here. On {gpu} with PyTorch {torch} and CUDA {cuda} (Python {python}) "
        "this cell printed:",
        "notebook.gpu.raised": "No CUDA GPU here. On {gpu} with PyTorch {torch} and CUDA {cuda} (Python {python}) "
        "this cell raised:",
        "notebook.gpu.quiet": "No CUDA GPU here. On {gpu} with PyTorch {torch} and CUDA {cuda} (Python {python}) "
        "this cell ran and printed nothing.",
        "notebook.gpu.none": "No CUDA GPU here: this cell runs only on one, and it has not been recorded on one yet.",
        "notebook.as-built": "As the site's build started this example: the same random seeds and torch threads,\n"
        "so that your outputs can match the page's (on a CPU, with the same PyTorch release).",
        "notebook.measured": "This check of the measurement above does not hold on this machine: a measurement "
        "depends on the machine and on its load. The site's build checks it on its own machine.",
        # publish: the comments of the lines a download adds, so that it runs to its end on a reader's machine
        "runnable.traceback": "cells that raise on purpose print their error, and the script goes on",
        "runnable.torch": "cells that need a CUDA GPU run only where there is one",
        "runnable.raised": "raised on purpose: the page shows this error",
        "runnable.measured": "a measurement: the build checks it on its own machine",
        "runnable.no-gpu": "(this cell needs a CUDA GPU; none here)",
        "runnable.module": "cells that need {module} run only where it is installed",
        "runnable.no-module": "(this cell needs {module}, which is not installed here: pip install {module})",
    },
    "zh": {
        "output": "输出",
        "exception": "抛出的异常（预期之中）",
        "figure": "图",
        "figure.of": "{alt}（第 {n} 幅，共 {count} 幅）",
        "cut": "…… 其余 {n:,} 个字符已截去（每个单元最多显示 {limit:,} 个字符）",
        "cuda": "此单元只能在 CUDA GPU 上运行。这里不显示它的输出：这一版代码还没有在 GPU 上运行过。",
        "stale": "此单元只能在 CUDA GPU 上运行。这里不显示它的输出：代码在 {gpu} 上运行之后（{date}）又改过了。",
        "module": "此单元需要 {module}，构建本站的机器上没有装。这里不显示它的输出：还没有装了 {module} 的环境"
        "运行过这一版代码。",
        "sources": "本页输出的来源：",
        "sources.built": "{label}：构建本站时{what}。",
        "sources.recorded": "{label}：录制于 {date}，{what}。",
        "unverified": "{label} · 未经验证",
        "sources.unverified": "{label}：自称录制于 {date}，{what}，但未经验证：没有本站信任的密钥为它签名，"
        "无法证明这些输出确实出自这台机器。",
        "prints": "{what} 的输出",
        "print": "{what} 的输出",
        "versions.own": "{label}；其余版本的输出与此相同，只是各自打印自己的版本号",
        "checked": "本页示例已在 torch {releases} 上检验{count}。",
        "checked.count": "（共 {n} 个版本）",
        "checked.gpu": "也已在 {device} 上用 torch {releases} 检验。",
        "checked.module": "需要 {module} 的单元在 torch {releases} 上检验过：本站构建用的 torch {here} 导入不了它。",
        "checked.module.none": "需要 {module} 的单元还没有检验过：本站构建用的 torch {here} 导入不了它，"
        "也还没有录制运行过这些单元。",
        "differ.on": "torch {releases} 上的输出有所不同，见输出下方的注释。",
        "and": "和",
        "sep": "、",
        "gap": "",
        "holds.note": "此处检验的说法适用于 {range}。",
        "holds.since": "torch {release} 及以上",
        "holds.until": "torch {release} 及以下",
        "holds.before": "torch {release} 之前的版本",
        "holds.between": "torch {since} 至 {last}",
        "holds.between.before": "torch {since} 及以上、{until} 之前的版本",
        "holds.only": "仅 torch {release}",
        "holds.but": "{range}（{releases} 除外）",
        "holds.but.only": "torch {releases} 以外的所有版本",
        "claim": "{claim}：适用于 {range}。",
        "claim.not": "{claim}：适用于 {range}，在 torch {releases} 上并非如此。",
        "claim.unsaid": "本页的一项说法",
        "check.link": "本页的一项检验",
        "check.fails": "在 torch {releases} 上，{check}不通过：页面所说的在这些版本上未必成立。",
        "check.since": "在 torch {releases} 上，{check}不通过：页面所说的自 torch {release} 起才成立。",
        "detail.title": "给贡献者",
        "detail.where": "{example} 第 {line} 行",
        "detail.failure": "在 torch {builds} 上不通过（{message}）",
        "detail.declared": "{where}，{holds}：检验{failures}。",
        "detail.declared.none": "{where}，{holds}：所有已录制的版本都通过了检验。",
        "detail.fails": "{where}：检验{failures}，且没有 holds= 声明这一点。",
        "failed": "示例构建失败",
        "download": "下载本示例：",
        "script": "脚本（.py）",
        "notebook": "带输出的笔记本（.ipynb）",
        "view": "笔记本视图",
        "colab": "在 Colab 中打开",
        "picker.label": "输出来自 torch",
        "picker.built": "{release}（默认：正文所用）",
        "picker.unrecorded": "{label}（torch {release} 没有在 {device} 上录制）",
        "picker.missing": "{label}（{other} 没有这个单元的录制输出）",
        "picker.unverified": "{label} · 未经验证",
        "picker.differs.holds": "这项检验适用于 {range}；torch {release} 实际打印的是：",
        "picker.differs": "这项检验在 torch {release} 上不成立，该版本实际打印的是：",
        "picker.raised.holds": "这项检验适用于 {range}；torch {release} 在这里抛出了 {error}",
        "picker.raised": "这项检验在 torch {release} 上不成立，该版本在这里抛出了 {error}",
        "picker.claim.holds": "{claim}：适用于 {range}，在 torch {release} 上并非如此，该版本实际打印的是：",
        "picker.claim": "{claim}：在 torch {release} 上并非如此，该版本实际打印的是：",
        "picker.claim.raised.holds": "{claim}：适用于 {range}，在 torch {release} 上并非如此，"
        "该版本在这里抛出了 {error}",
        "picker.claim.raised": "{claim}：在 torch {release} 上并非如此，该版本在这里抛出了 {error}",
        "picker.raised.after": "，此前打印了：",
        "picker.raised.end": "。",
        "picker.stopped": "{label}（torch {release} 在本单元之前的一项检验处停止，没有本单元的输出）",
        "picker.source": "{label}：{what}。",
        "index.summary": "共 {errors} 种不同的错误，出现在 {pages} 个页面上。",
        "index.other": "其他",
        "index.no-message": "抛出时不带任何信息",
        "index.quoted": "引自 {project} 源码",
        "index.quoted.release": "引自 {project} {releases} 的源码",
        "index.quoted.link": "源码引文",
        "index.device": "{device} 上的 {releases}",
        "quoted.title": "引自 {project} 源码，不是运行输出",
        "quoted.commit": "（提交 {commit}）",
        "quoted.from": "这段报错文本引自 {project} {release} 的源码 {source}：这是源码里的原文，不是录制的输出。",
        "changes.summary": "与页面默认显示的 torch {torch}（Python {python}）相比，"
        "去掉警告的文件名与行号等噪声之后的差异。",
        "changes.none": "本站尚未在同一设备上录制其他 torch 版本。",
        "changes.compared": "参与比较的版本：torch {releases}（共 {n} 个），都在本站所用的设备上录制。",
        "changes.same": "torch {releases} 的所有输出与检验都与页面默认显示的相同。",
        "changes.python": "以下版本在 Python {python} 下录制，与本站所用的不同：torch {releases}。",
        "changes.uninstallable": "torch {release} 无法安装在 Python {python}（{platform}）上，因此本站没有它的录制。"
        "pip 的提示：{reason}",
        "changes.cell": "单元",
        "changes.behaviour": "行为变化",
        "changes.starts": "{claim}（{page}）",
        "changes.stops": "不再成立：{claim}（{page}）",
        "changes.breaks": "这个版本上不成立：{claim}（{page}）",
        "changes.again": "重新成立：{claim}（{page}）",
        "changes.unsaid": "该页的一项说法",
        "changes.overview": "概览",
        "changes.by_page": "逐页详情",
        "changes.by_release": "各版本的输出与前一个版本相比有哪些变化：",
        "changes.release": "**torch {release}**：{pages}的输出有变化",
        "changes.pages": "{n} 个页面",
        "changes.pages.one": "1 个页面",
        "changes.outputs": "（{n} 处输出）",
        "changes.tips": "**并非在每个版本上都成立的技巧**：{pages}",
        "changes.page.cells": "{n} 处输出有变化",
        "changes.page.cells.one": "1 处输出有变化",
        "changes.page.tip": "技巧：{when}",
        "changes.page.sep": "；",
        "changes.page.open": "打开页面：{page}",
        "changes.page.line": "**{page}**：{said}",
        "changes.tip": "{page}：{when}",
        "changes.before": "torch {release} 之前不成立",
        "changes.from": "从 torch {release} 起不成立",
        "changes.on": "在 torch {releases} 上不成立",
        "changes.cell.summary": "`{cell}` 的输出在 torch {releases} 中有变化",
        "changes.step": "从 torch {old} 到 {new}：",
        "changes.check": "{when}：检验 {code} 不通过（{message}，`{example}` 第 {line} 行）。",
        "changes.check.nocode": "{when}：一项检验不通过（{message}，`{example}` 第 {line} 行）。",
        "view.title": "{title}：笔记本",
        "view.description": "{title}：示例的笔记本版本，带有页面上展示的输出。",
        "view.back": "返回页面",
        "notebook.built": "以下输出是构建本站时在 {device} 上用 PyTorch {torch}（Python {python}）实际运行得到的；"
        "个别单元格的输出另有来源时，下方会注明。",
        "notebook.recorded": "这个单元格的输出录制于 {date}，{what}；构建本站的机器没有 GPU。",
        "words.gpu": "GPU",
        "words.cpu": "CPU",
        "words.nogpu": "CUDA 版本，无 GPU",
        "words.nogpu.many": "CUDA 版本，无 GPU",
        "words.what.torch": "在 {device} 上用 PyTorch {torch}（Python {python}）实际运行得到",
        "words.what.cuda": "在 {device} 上用 PyTorch {torch}、CUDA {cuda}（Python {python}）实际运行得到",
        "words.what.wheel": "在 {device} 上用 PyTorch {torch}（为 CUDA {cuda} 构建的版本，在没有 GPU 的机器上运行；"
        "Python {python}）实际运行得到",
        "words.what": "在 {device} 上用 Python {python} 实际运行得到",
        "notebook.cuda": "这个单元格需要 CUDA GPU；构建本站的机器没有 GPU。",
        "notebook.module": "这个单元格需要 {module}；构建本站的机器上没有装。",
        "notebook.gpu.printed": "这里没有 CUDA GPU。在 {gpu} 上用 PyTorch {torch}、CUDA {cuda}（Python {python}）"
        "运行时，这个单元格的输出是：",
        "notebook.gpu.raised": "这里没有 CUDA GPU。在 {gpu} 上用 PyTorch {torch}、CUDA {cuda}（Python {python}）"
        "运行时，这个单元格抛出了异常：",
        "notebook.gpu.quiet": "这里没有 CUDA GPU。在 {gpu} 上用 PyTorch {torch}、CUDA {cuda}（Python {python}）"
        "运行时，这个单元格没有输出。",
        "notebook.gpu.none": "这里没有 CUDA GPU：这个单元格只能在 GPU 上运行，目前也还没有它在 GPU 上的录制结果。",
        "notebook.as-built": "与本站构建时运行这个示例的方式一致：相同的随机数种子和 torch 线程数，\n"
        "这样你得到的输出才可能和页面上的一致（在 CPU 上、用同一个 PyTorch 版本时）。",
        "notebook.measured": "上面那次测量的检验在这台机器上不成立：测量结果取决于机器本身和它当时的负载。"
        "本站构建时会在自己的机器上做这项检验。",
        "runnable.traceback": "故意报错的单元会打印出错误信息，脚本接着往下运行",
        "runnable.torch": "需要 CUDA GPU 的单元只在有 GPU 的机器上运行",
        "runnable.raised": "故意触发的报错：页面上展示的就是这个错误",
        "runnable.measured": "这是一次测量：构建本站时会在自己的机器上检验它",
        "runnable.no-gpu": "（这个单元需要 CUDA GPU，这里没有）",
        "runnable.module": "需要 {module} 的单元只在装了它的环境里运行",
        "runnable.no-module": "（这个单元需要 {module}，这里没有安装：pip install {module}）",
    },
}

LANGUAGES = tuple(TEXT)


def text(lang: str) -> dict[str, str]:
    """The texts of language ``lang``; English where the engine does not speak it."""
    return TEXT.get(lang, TEXT[DEFAULT])
