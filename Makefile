# `make build` and `make test` set everything up on a fresh clone: only python3 and make are needed.
export NO_MKDOCS_2_WARNING := 1  # mkdocs-material's banner about MkDocs 2.0, printed on every build

VENV   := .venv
PYTHON := $(VENV)/bin/python
READY  := $(VENV)/.installed

.PHONY: build serve test test-slow page run diff links lighthouse record record-release lock-gpu comments notebooks katex bench lint clean

build: $(READY)  ## run the examples and build the site into site/
	$(PYTHON) -m mkdocs build --strict

serve: $(READY)  ## live preview at http://127.0.0.1:8000/pytorch-tips/ of the English pages; PREVIEW=zh: Chinese, PREVIEW=all: the whole site
	PREVIEW=$(PREVIEW) $(PYTHON) -m mkdocs serve

# pytest workers: one more than the cores this process may use, for the modules that mostly wait (timeouts,
# a stopped worker); more contend for the cores (4 workers took about 5 % more CPU time than 3 on 2 cores)
TEST_JOBS ?= $(shell python3 -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')

PYTEST := $(PYTHON) -m pytest -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder  # modules in parallel, each with its own fixtures, longest first (tests/conftest.py)

test: $(READY)  ## lint, the workflow checks and the fast lane of the tests, in parallel (about three minutes)
	$(PYTHON) -m ruff check src tests hooks tools
	$(PYTHON) -m mypy  # src, hooks and tools: [tool.mypy] in pyproject.toml
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/actionlint  # with shellcheck on the `run:` scripts
	$(VENV)/bin/zizmor --offline --quiet .github/workflows
	$(PYTEST) -m "not slow"

# beside `make test`, in CI and before a release: the tests marked `slow` (tests/conftest.py: SLOW_FIXTURES)
test-slow: $(READY)  ## the slow lane: the real site built and checked, every example run again as a script and as each downloaded notebook (about eight minutes)
	$(PYTEST) -m slow

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
	{ git diff --name-only --no-renames "$(BASE)"; git ls-files --others --exclude-standard; } | $(PYTHON) -m mkdocs_examples unsandboxed - --pages .

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
	$(PYTHON) tools/record_release.py "$(TORCH)"

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

$(READY): requirements.txt pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(READY)

clean:  ## remove the built site and the example cache (keeps .venv)
	rm -rf site .cache
