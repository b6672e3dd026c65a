"""benchmarks/gpu_day.sh, the script for the day a GPU is lent: it cannot run here, so what can be
checked without one is checked: bash reads it, and the pre-training commands it builds parse."""

import subprocess
from pathlib import Path

from minibert.pretrain.__main__ import parse

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_day.sh"


def test_bash_reads_the_script():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_its_two_phases_are_the_course_recipe_at_mini_sizes():
    one, _ = parse(["--config", "course", "--model", "mini", "--batch-size", "256", "--lr", "1e-3",
                    "--mixed-precision", "bf16", "--out-dir", "runs/gpu/course-mini"])
    two, _ = parse(["--config", "course-128", "--model", "mini", "--batch-size", "128", "--lr", "1e-3",
                    "--init-from", "runs/gpu/course-mini/final", "--out-dir", "runs/gpu/course-mini-128"])
    assert (one.max_seq_length, two.max_seq_length, one.nsp, two.nsp) == (32, 128, False, False)
    text = SCRIPT.read_text()
    assert "--config course --model mini" in text and "--config course-128 --model mini" in text
