"""Run chapters top to bottom in a fresh kernel and store them with their outputs.

    python notebooks/execute.py                      # every chapter and every exercise solution
    python notebooks/execute.py notebooks/01_*.ipynb  # some

This is how the stored outputs are made: one clean run, execution counts 1..n, in this environment's
kernel, from the notebooks/ folder, offline. `make test` then re-runs every chapter with nbval and
compares its outputs with the stored ones. A cell tagged `raises-exception` may raise; any other
error stops the run and leaves the notebook as it was.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def kernel_environment() -> None:
    """What every chapter runs under, here and in the tests (notebooks/conftest.py)."""
    # A chapter never downloads: a hub call fails at once instead of waiting on the network.
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1",
                      TOKENIZERS_PARALLELISM="false", PYDEVD_DISABLE_FILE_VALIDATION="1")
    # MPLBACKEND=Agg would make %matplotlib inline draw nothing into the stored outputs.
    os.environ.pop("MPLBACKEND", None)


def execute(path: Path, timeout: int = 600) -> float:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
    start = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    seconds = time.perf_counter() - start
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata.get("language_info", {}).pop("version", None)  # the patch level is not the course's
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return seconds


def main(paths: list[str]) -> None:
    kernel_environment()
    solutions = HERE.parent / "exercises" / "solutions"
    notebooks = [Path(p).resolve() for p in paths] or (
        sorted(HERE.glob("[0-9][0-9]_*.ipynb")) + sorted(solutions.glob("[0-9][0-9]_*.ipynb")))
    for path in notebooks:
        name = path.relative_to(HERE.parent) if path.is_relative_to(HERE.parent) else path
        print(f"{name}: {execute(path):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
