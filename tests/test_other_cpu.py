"""`pytest --other-cpu` (run by `make test` on every notebook) catches an output that holds only on our CPU.

A planted notebook trains a small model for five steps and prints its loss. Stored from a run on
this machine, it is re-run with nbval as another machine would run it: printed to 7 decimals the
loss differs and nbval fails, naming the cell; printed to 3 it matches. Both halves are needed: the
first shows the check can fail, the second that it does not fail on everything.
"""

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "notebooks"))
from execute import execute, other_cpu_environment  # noqa: E402

TRAIN = """\
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256),
                            torch.nn.LayerNorm(256))
x = torch.randn(512, 256)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(5):
    loss = model(x).pow(2).mean().log()
    opt.zero_grad()
    loss.backward()
    opt.step()"""


def planted(folder: Path, decimals: int) -> Path:
    """A notebook that prints a loss after training steps to `decimals`, stored from a run here."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(TRAIN),
                nbformat.v4.new_code_cell(f'print(f"loss after 5 steps: {{loss.item():.{decimals}f}}")')]
    path = folder / f"planted_{decimals}.ipynb"
    nbformat.write(nb, path)
    ours = {name: os.environ.pop(name) for name in other_cpu_environment() if name in os.environ}
    try:
        execute(path)  # as this machine computes, even inside a suite run with --other-cpu
    finally:
        os.environ.update(ours)
    return path


def nbval_as_another_cpu(path: Path) -> subprocess.CompletedProcess:
    # The repository's conftest.py as a plugin (-p conftest, from the root) gives --other-cpu and
    # the sanitize file; an empty ini keeps the suite's own options out.
    (path.parent / "pytest.ini").write_text("[pytest]\n")
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-c", str(path.parent / "pytest.ini"),
                           "--nbval", "--nbval-current-env", "--other-cpu", "-p", "no:cacheprovider", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("other_cpu")


def test_the_other_cpu_changes_how_this_machine_computes():
    assert set(other_cpu_environment()) == {"ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS",
                                            "ONEDNN_MAX_CPU_ISA", "OMP_NUM_THREADS"}


def test_a_loss_printed_to_7_decimals_fails(folder):
    run = nbval_as_another_cpu(planted(folder, 7))
    assert run.returncode == 1, run.stdout[-3000:]
    assert "1 failed" in run.stdout and "loss after 5 steps" in run.stdout, run.stdout[-3000:]


def test_the_same_loss_to_3_decimals_passes(folder):
    run = nbval_as_another_cpu(planted(folder, 3))
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout[-3000:]
