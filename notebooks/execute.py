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


def kernel_environment(other_cpu: bool = False, gpu: bool = False) -> None:
    """What every chapter runs under, here, in the tests (conftest.py) and in JupyterLab (course.py).
    `other_cpu`: see other_cpu_environment; `gpu`: let the kernels see a GPU (`make course GPU=1`)."""
    # A chapter never downloads: a hub call fails at once instead of waiting on the network.
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1",
                      TOKENIZERS_PARALLELISM="false", PYDEVD_DISABLE_FILE_VALIDATION="1")
    # MPLBACKEND=Agg would make %matplotlib inline draw nothing into the stored outputs.
    os.environ.pop("MPLBACKEND", None)
    if not gpu:
        # The chapters are sized for a CPU and stored from one. On a GPU (CUDA, or Apple's MPS)
        # accelerate would move their runs there and train them in bf16: other numbers than the
        # stored ones, at sizes too small to gain. So they run on the CPU on purpose.
        os.environ.update(CUDA_VISIBLE_DEVICES="", ACCELERATE_USE_CPU="1")
    if other_cpu:
        os.environ.update(other_cpu_environment())


def other_cpu_environment() -> dict[str, str]:
    """Settings under which this machine computes the way another one would.

    A learner's CPU differs from ours in vector width and core count, and both change the order in
    which floating-point sums are added up: the same chapter then prints 3.2e-07 where we stored
    2.8e-07. One machine can play another by narrowing the vectors that torch's own kernels, MKL's
    BLAS and oneDNN dispatch to (AVX-512 -> AVX2, as on most laptops; AVX2 or narrower -> none) and by
    changing the thread count. `make test` re-runs every notebook so (`pytest --other-cpu`): a stored
    output that holds only on our CPU fails there.
    """
    import torch  # here: course.py imports this file to start JupyterLab, which needs no torch

    wide = torch.backends.cpu.get_cpu_capability() == "AVX512"
    return {"ATEN_CPU_CAPABILITY": "avx2" if wide else "default",
            "MKL_ENABLE_INSTRUCTIONS": "AVX2" if wide else "SSE4_2",
            "ONEDNN_MAX_CPU_ISA": "AVX2" if wide else "SSE41",
            "OMP_NUM_THREADS": "1" if torch.get_num_threads() > 1 else "2"}


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
