"""The exercise mechanism: learner notebooks are generated from the solutions and never drift from
them or leak them; every exercise has a checker; the solutions pass every check."""

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "exercises"))
import build  # noqa: E402  exercises/build.py

SOLUTIONS = sorted((ROOT / "exercises" / "solutions").glob("[0-9][0-9]_*.ipynb"))
REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION[ \t]*\n(.*?)^[ \t]*### END SOLUTION", re.MULTILINE | re.DOTALL)


# Chapter 00 is the tour of the finished pieces: it builds nothing, so it has nothing to rebuild.
TOUR = "00_big_picture.ipynb"


def test_every_chapter_has_exercises():
    chapters = {p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")} - {TOUR}
    assert chapters and chapters <= {p.name for p in SOLUTIONS}, "each chapter has exercises of the same name"


def test_learner_notebooks_are_generated_from_the_solutions():
    result = subprocess.run([sys.executable, str(ROOT / "exercises" / "build.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr + result.stdout


def test_strip_solutions_keeps_the_indentation():
    source = "def f(x):\n    '''doc'''\n    ### BEGIN SOLUTION\n    y = x + 1\n    return y\n    ### END SOLUTION\n"
    assert build.strip_solutions(source, "1.2", "here") == (
        "def f(x):\n    '''doc'''\n    raise NotImplementedError(\"Exercise 1.2: replace this line with your code\")")
    for broken, message in (("    ### BEGIN SOLUTION\nx", "never ended"), ("    ### END SOLUTION", "without a BEGIN"),
                            ("### BEGIN SOLUTION\n### BEGIN SOLUTION", "inside another")):
        with pytest.raises(build.BuildError, match=message):
            build.strip_solutions(broken, "1.1", "here")


@pytest.fixture(params=SOLUTIONS, ids=lambda p: p.name)
def pair(request):
    solutions = nbformat.read(request.param, as_version=4)
    learner = nbformat.read(ROOT / "exercises" / request.param.name, as_version=4)
    return request.param.name, solutions, learner


def test_no_solution_leaks(pair):
    name, solutions, learner = pair
    learner_text = "\n".join(c.source for c in learner.cells)
    assert "### BEGIN SOLUTION" not in learner_text and "### END SOLUTION" not in learner_text
    regions = [r for c in solutions.cells if c.cell_type == "code" for r in REGION.findall(c.source)]
    for region in regions:
        for line in region.splitlines():
            line = line.strip()
            # A line long enough to be specific to a solution must not appear in the learner's notebook.
            if len(line) >= 16 and not line.startswith("#"):
                assert line not in learner_text, f"{name}: solution line leaks: {line!r}"


def test_shape_of_an_exercise_notebook(pair):
    name, solutions, learner = pair
    code = [c for c in solutions.cells if c.cell_type == "code"]
    exercises = [i for i, c in enumerate(code) if "### BEGIN SOLUTION" in c.source]
    assert len(exercises) >= 3, f"{name}: at least 3 exercises"
    for i in exercises:
        following = code[i + 1] if i + 1 < len(code) else None
        assert following is not None and "check" in following.metadata.get("tags", []), (
            f"{name}: the cell after an exercise runs its checker and is tagged `check`:\n{code[i].source[:200]}")
        assert re.search(r"\bcheck\.\w+\(", following.source), f"{name}: a check cell calls check.<name>(...)"
    headings = [c.source for c in solutions.cells if c.cell_type == "markdown"]
    assert len([h for h in headings if re.match(r"## Exercise \d+\.\d+", h)]) == len(exercises)


def test_solutions_are_one_clean_run_and_learner_notebooks_are_blank(pair):
    name, solutions, learner = pair
    counts = [c.execution_count for c in solutions.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), f"{name}: store the solutions with notebooks/execute.py"
    for cell in solutions.cells:
        if cell.cell_type == "code":
            assert not any(o.output_type == "error" for o in cell.outputs), f"{name}: a solution cell raised"
            if "check" in cell.metadata.get("tags", []):
                assert any("✓" in o.get("text", "") for o in cell.outputs), f"{name}: a check did not pass"
    for cell in learner.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
            tags = cell.metadata.get("tags", [])
            assert ("raises-exception" in tags) == ("check" in tags)
