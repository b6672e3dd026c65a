"""nbval settings for every notebook (chapters and exercises): the kernel's environment, the sanitize
file, per-notebook times, and `--other-cpu` (the notebooks re-run as another machine would run them)."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent / "notebooks"
sys.path.insert(0, str(HERE))
from execute import kernel_environment

# A learner's copy of the course (made by `make course`; exercises/mine/ before it) is theirs, not the
# course's tests.
collect_ignore = ["course", "exercises/mine"]

# Each notebook should run in 3 minutes on a 2-core machine; a slower one is named in the summary.
# Chapter 05 gets 3 more: its section 5.2 pre-trains with the course recipe for about 3 minutes,
# long enough to leave the unigram plateau. The capstone's solutions get 2 more: the learner's BERT is
# fine-tuned on 2,000 sentiment snippets for 3 epochs (about 100 s), the run that shows it works.
BUDGET_SECONDS = 180
LONGER = {"notebooks/05_pretraining.ipynb": 360, "exercises/solutions/11_capstone.ipynb": 300}
_seconds: dict[str, float] = defaultdict(float)


def pytest_addoption(parser):
    parser.addoption("--other-cpu", action="store_true",
                     help="run the notebooks' kernels with another vector width and thread count "
                          "(notebooks/execute.py, other_cpu_environment): a stored output that only "
                          "this machine's floating-point order reproduces fails")


def pytest_configure(config):
    kernel_environment(other_cpu=config.getoption("other_cpu"))  # the kernel nbval starts inherits it
    if getattr(config.option, "nbval_sanitize_with", None) is None:
        config.option.nbval_sanitize_with = str(HERE / "sanitize.cfg")


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        _seconds[path] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not _seconds:
        return
    terminalreporter.section("notebook times (nbval, this machine)")
    for path, seconds in sorted(_seconds.items()):
        budget = LONGER.get(path, BUDGET_SECONDS)
        over = f"  over the {budget} s budget" if seconds > budget else ""
        terminalreporter.write_line(f"{seconds:7.1f} s  {path}{over}")
