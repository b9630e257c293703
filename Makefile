# `make build` and `make test` set everything up on a fresh clone: only python3 and make are needed.
export NO_MKDOCS_2_WARNING := 1  # mkdocs-material's banner about MkDocs 2.0, printed on every build

VENV   := .venv
PYTHON := $(VENV)/bin/python
READY  := $(VENV)/.installed

.PHONY: help build serve lint test test-slow page run diff links lighthouse record record-release lock-gpu comments notebooks katex bench cache clean

build: $(READY)  ## run the examples and build the site into site/
	$(PYTHON) -m mkdocs build --strict

serve: $(READY)  ## live preview at http://127.0.0.1:8000/pytorch-tips/ of the English pages; PREVIEW=zh: Chinese, PREVIEW=all: the whole site
	PREVIEW=$(PREVIEW) $(PYTHON) -m mkdocs serve

# pytest workers: one more than the cores this process may use, for the modules that mostly wait (timeouts,
# a stopped worker); more contend for the cores (4 workers took about 5 % more CPU time than 3 on 2 cores).
# os.sched_getaffinity is Linux's; macOS counts every core
TEST_JOBS ?= $(shell python3 -c 'import os; print((len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1) + 1)')

PYTEST := $(PYTHON) -m pytest -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder  # modules in parallel, each with its own fixtures, longest first (tests/conftest.py)

# commit subjects checked by `lint`: those since the merge base with main, or the last LINT_COMMITS without one
LINT_COMMITS ?= 10

lint: $(READY)  ## ruff, mypy, the workflow checks (actionlint with shellcheck, zizmor) and the new commits' subjects (at most 72 characters)
	$(PYTHON) -m ruff check src tests tools
	$(PYTHON) -m mypy  # src and tools: [tool.mypy] in pyproject.toml
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/actionlint  # with shellcheck on the `run:` scripts
	$(VENV)/bin/zizmor --offline --quiet .github/workflows
	$(PYTHON) tools/commit_subjects.py --last $(LINT_COMMITS)

# outside CI, the notebooks follow the examples before the tests read them; in CI a stale one fails tests/test_notebooks.py
test: lint  ## `make lint`, the notebooks written again (outside CI), then the fast lane of the tests, in parallel (about three minutes)
	$(if $(CI),,$(PYTHON) -m mkdocs_examples notebooks notebooks)
	$(PYTEST) -m "not slow"

# beside `make test`, in CI and before a release: the tests marked `slow` (tests/conftest.py: SLOW_FIXTURES)
test-slow: $(READY)  ## the slow lane: the real site built and checked, every example run again as a script and as each downloaded notebook (the longest lane; it lists its slowest tests)
	$(PYTEST) -m slow --durations=25

# make's command-line variables reach the recipe's environment: titles may hold any character
page: $(READY)  ## start a page in both languages and its example: make page PAGE=tensors/views [TITLE=.. TITLE_ZH=..]
	$(PYTHON) tools/new_page.py "$$PAGE" --title "$$TITLE" --title-zh "$$TITLE_ZH" --section "$$SECTION" --section-zh "$$SECTION_ZH"
	$(PYTHON) -m mkdocs_examples notebooks notebooks  # the new example's notebook, for Colab

run: $(READY)  ## run examples without the site: make run EXAMPLES=examples/tensors
	$(PYTHON) -m mkdocs_examples run $(EXAMPLES)

BASE ?= main
diff: $(READY)  ## the outputs your change moves, cell by cell, compared with BASE (default: main), the files it changes that run outside the sandbox and its pages' raw HTML, as CI shows them
	rm -rf .cache/base && mkdir -p .cache/base/.cache
	git archive $(BASE) mkdocs.yml docs examples recordings | tar -x -C .cache/base
	ln -s "$(CURDIR)/.cache/examples" .cache/base/.cache/examples  # results are content-addressed: share them
	$(PYTHON) -m mkdocs_examples run -f .cache/base/mkdocs.yml --snapshot .cache/base.json > /dev/null
	$(PYTHON) -m mkdocs_examples run --snapshot .cache/head.json > /dev/null
	$(PYTHON) -m mkdocs_examples diff .cache/base.json .cache/head.json --base "$(BASE)" --recordings recordings \
	  --compare-recordings .cache/base/recordings recordings
	{ git diff --name-only --no-renames "$(BASE)"; git ls-files --others --exclude-standard; } | $(PYTHON) -m mkdocs_examples unsandboxed - --pages . \
	  --nav .cache/base/mkdocs.yml mkdocs.yml  # a change of mkdocs.yml's nav alone is content

links: $(READY)  ## check every link and anchor of the built site (after `make build`)
	$(PYTHON) tools/links.py site

# not in `test`: a minute or two, and scores that depend on the machine's load
lighthouse: $(READY)  ## after `make build`: Lighthouse (mobile) on 8 pages, the median of 5 runs each, then the bytes before search and the time to a first result on a throttled phone (needs npm)
	$(PYTHON) tools/lighthouse.py site; scores=$$?; $(PYTHON) tools/search_timing.py site && exit $$scores

record: $(READY)  ## on a GPU machine: record CUDA and CPU outputs into recordings/<environment>/ (MAINTAINING.md: "CUDA outputs")
	rm -rf .cache/record
	$(PYTHON) -m mkdocs_examples record --out .cache/record/cuda
	$(PYTHON) -m mkdocs_examples record --device cpu --keep-failed --out .cache/record/cpu
	$(PYTHON) -m mkdocs_examples merge .cache/record/cuda --device cuda --into recordings
	$(PYTHON) -m mkdocs_examples merge .cache/record/cpu --device cpu --into recordings

record-release: $(READY)  ## record every example on this CPU under one torch release: make record-release TORCH=2.4.1 (MAINTAINING.md: "Torch releases")
	$(PYTHON) tools/record_release.py "$(TORCH)" $(ARGS)

lock-gpu: $(READY)  ## after changing requirements.txt: write requirements-gpu.txt, what the GPU job installs, with hashes (from PyPI)
	$(PYTHON) tools/lock_gpu.py

comments: $(READY)  ## write examples/<path>.zh.yml with each comment not yet translated (empty), to fill in
	$(PYTHON) -m mkdocs_examples comments

notebooks: $(READY)  ## write notebooks/ (each example as a runnable notebook, opened by Colab from GitHub)
	$(PYTHON) -m mkdocs_examples notebooks notebooks

katex:  ## vendor KaTeX (the release pinned in tools/vendor_katex.py) from npm into docs/assets/katex/ (needs npm)
	python3 tools/vendor_katex.py

bench: $(READY)  ## engine vs the floor vs a Jupyter kernel per example, the edit loop of `make serve`, then (after `make build`) what the palette script and lazy search results save a browser: bench/README.md (minutes; not in `test`)
	$(PYTHON) bench/bench.py
	$(PYTHON) bench/serve.py
	$(PYTHON) bench/pages.py

# torch: on Linux, PyPI's wheel of the pinned release carries several GB of CUDA libraries, so the first install takes
# the CPU wheel of the same release from PyTorch's index, alone (its dependencies come pinned from requirements.txt).
# `make build CUDA=1` on a fresh .venv (or CUDA=1 in the environment) takes PyPI's CUDA wheel instead.
# CI and the deploy install requirements.txt with that index too (PIP_EXTRA_INDEX_URL in their workflows).
CUDA ?=
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
TORCH_PIN := $(shell sed -n 's/^\(torch==[^ ]*\).*/\1/p' requirements.txt)
TORCH_CPU := $(if $(CUDA),,$(filter Linux,$(shell uname -s)))

$(READY): requirements.txt pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(if $(TORCH_CPU),$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps --extra-index-url $(TORCH_CPU_INDEX) "$(TORCH_PIN)")
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(READY)

cache: $(READY)  ## what the example cache holds (.cache/examples), and its size; `make cache PRUNE=1` drops the entries no example of this tree can use
	$(PYTHON) -m mkdocs_examples cache $(if $(PRUNE),prune,list)

clean:  ## remove the built site and every cache (.cache: the examples', the notebooks', the render cache; keeps .venv)
	rm -rf site .cache

help:  ## list the targets, each with what it does
	@sed -n 's/^\([a-z-]*\):.*## \(.*\)/\1\t\2/p' $(MAKEFILE_LIST) | awk -F '\t' '{ printf "  make %-15s %s\n", $$1, $$2 }'
