"""Make the learner's exercise notebooks from the solutions.

    python exercises/build.py           # write exercises/NN_topic.ipynb from exercises/solutions/
    python exercises/build.py --check   # fail if the committed ones differ (the tests run this)

`exercises/solutions/NN_topic.ipynb` is the source. In it, each solution sits between two marker
lines inside a function body:

    def my_encode(word, vocab):
        ### BEGIN SOLUTION
        ...
        ### END SOLUTION

The learner's notebook gets, in place of each region, `raise NotImplementedError(...)` at the same
indentation, naming the exercise. Outputs and execution counts are cleared. The cell that runs an
exercise's checker is tagged `check` in the solutions; in the learner's notebook it is also tagged
`raises-exception`, since it raises until the exercise is done (nbval lets it).

Relative links in the solutions are written from exercises/solutions/ (`../../notebooks/NN_topic.ipynb`
to the chapter, `../NN_topic.ipynb` to the learner's notebook), so that they work where they are; the
learner's notebook gets each one rewritten from exercises/ (`../notebooks/NN_topic.ipynb`). A link that
leads nowhere from solutions/ is copied as it is.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
BEGIN = re.compile(r"^(\s*)### BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*### END SOLUTION\s*$")
EXERCISE = re.compile(r"^## Exercise (\d+\.\d+)", re.MULTILINE)
# A markdown link's target, `[text](target)` or `href="target"`.
LINK = re.compile(r"(\]\(|href=\")([^)\s\"#?]+)")


class BuildError(ValueError):
    pass


def relink(source: str, solutions: Path = HERE / "solutions", learner: Path = HERE) -> str:
    """`source` (markdown of a solution notebook) with each relative link that resolves from `solutions`
    rewritten to resolve the same from `learner`."""
    def move(match: re.Match) -> str:
        opening, target = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/") or not (solutions / target).exists():
            return match.group(0)  # a URL, an absolute path, or a link this function cannot place
        return opening + Path(os.path.relpath(solutions / target, learner)).as_posix()
    return LINK.sub(move, source)


def strip_solutions(source: str, exercise: str, where: str) -> str:
    """`source` with every marked region replaced by a NotImplementedError raise."""
    out, indent = [], None
    for number, line in enumerate(source.splitlines(), 1):
        if (begin := BEGIN.match(line)) is not None:
            if indent is not None:
                raise BuildError(f"{where}, line {number}: BEGIN SOLUTION inside another region")
            indent = begin.group(1)
            out.append(f'{indent}raise NotImplementedError("Exercise {exercise}: replace this line with your code")')
        elif END.match(line):
            if indent is None:
                raise BuildError(f"{where}, line {number}: END SOLUTION without a BEGIN")
            indent = None
        elif indent is None:
            out.append(line)
    if indent is not None:
        raise BuildError(f"{where}: BEGIN SOLUTION never ended")
    return "\n".join(out)


def learner_notebook(solutions: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(solutions)  # a deep copy
    exercise = "?"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and (found := EXERCISE.findall(cell.source)):
            exercise = found[-1]
        if cell.cell_type == "markdown":
            cell.source = relink(cell.source)
        if cell.cell_type != "code":
            continue
        cell.source = strip_solutions(cell.source, exercise, f"{name} cell {i}")
        cell.outputs, cell.execution_count = [], None
        tags = list(cell.metadata.get("tags", []))
        if "check" in tags and "raises-exception" not in tags:
            tags.append("raises-exception")
        if tags:
            cell.metadata["tags"] = tags
    return nb


def build(check: bool = False) -> list[str]:
    """Write (or, with check, compare) every learner notebook; returns the names that differ."""
    stale = []
    sources = sorted((HERE / "solutions").glob("[0-9][0-9]_*.ipynb"))
    if not sources:
        raise BuildError(f"no solution notebooks in {HERE / 'solutions'}")
    for source in sources:
        text = nbformat.writes(learner_notebook(nbformat.read(source, as_version=4), source.name)) + "\n"
        target = HERE / source.name
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(source.name)
        if not check:
            target.write_text(text, encoding="utf-8")
    return stale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if a notebook is stale")
    args = parser.parse_args()
    try:
        stale = build(check=args.check)
    except BuildError as e:
        sys.exit(f"error: {e}")
    if args.check:
        if stale:
            sys.exit(f"{', '.join(stale)} in exercises/ differ from what exercises/build.py makes from "
                     "exercises/solutions/. If you changed a solution, run `python exercises/build.py` and commit "
                     "the result. If you did the exercises in these files, move them to course/exercises/ (your "
                     "copy of the course, which `make course` makes and the tests leave alone), then restore the "
                     "originals with `git checkout exercises/`.")
        print("the learner notebooks are up to date")
    else:
        print(f"wrote {len(stale)} learner notebook(s); the others were up to date")

if __name__ == "__main__":
    main()
