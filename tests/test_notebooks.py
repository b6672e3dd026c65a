"""The chapters are stored as one clean top-to-bottom run, in the shape every chapter follows.

nbval (run by `make test` on notebooks/) re-executes each chapter and compares its outputs with the
stored ones; these tests check what nbval does not: how they were stored.
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_BYTES = 3_000_000  # GitHub renders notebooks up to a few MB; outputs must stay small
NETWORK = re.compile(r"cdnjs|unpkg\.com|jsdelivr|googleapis|<script[^>]+src=|https?://cdn\.", re.IGNORECASE)
HUB_ID = re.compile(r"from_pretrained\(\s*[\"'](bert-[\w-]+|[\w-]+/[\w.-]+)[\"']")


def _ids(path):
    return path.name


@pytest.fixture(params=CHAPTERS, ids=_ids, scope="module")
def chapter(request):
    return request.param, nbformat.read(request.param, as_version=4)


def _tags(cell):
    return set(cell.metadata.get("tags", []))


def _texts(output):
    data = output.get("data", {})
    yield output.get("text", "")
    yield "\n".join(output.get("traceback", []))  # `%xmode Minimal` keeps file paths out of it
    for mime in ("text/plain", "text/html", "application/javascript"):
        yield "".join(data.get(mime, ""))


def test_there_are_chapters():
    assert len(CHAPTERS) >= 4, [p.name for p in CHAPTERS]


def test_named_and_listed():
    listed = (ROOT / "notebooks" / "README.md").read_text()
    for path in CHAPTERS:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+\.ipynb", path.name), path.name
        assert path.name in listed, f"notebooks/README.md does not link {path.name}"


def test_one_clean_run(chapter):
    path, nb = chapter
    nbformat.validate(nb)
    counts = [c.execution_count for c in nb.cells if c.cell_type == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts} are not 1..n; store it with `python notebooks/execute.py {path.name}`")
    assert nb.metadata.kernelspec.name == "python3"


def test_errors_only_where_tagged(chapter):
    path, nb = chapter
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        raised = any(o.output_type == "error" for o in cell.outputs)
        # nbval passes a raises-exception cell that raised nothing: the stored output must show the error.
        what = "raised without" if raised else "raised nothing, yet has"
        assert raised == ("raises-exception" in _tags(cell)), (
            f"{path.name} cell {i}: {what} the raises-exception tag:\n{cell.source[:200]}")


def test_tags_not_comment_markers(chapter):
    path, nb = chapter
    for cell in nb.cells:
        # A marker comment works only as a whole line (and silently does nothing otherwise): tags are explicit.
        assert "NBVAL_" not in cell.source, f"{path.name}: use cell tags, not `# NBVAL_...` comments"


def test_shape_of_a_chapter(chapter):
    path, nb = chapter
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith(f"# {path.name[:2]}"), (
        f"{path.name} must open with a title '# {path.name[:2]} · ...'")
    parameters = [i for i, c in enumerate(nb.cells) if "parameters" in _tags(c)]
    assert len(parameters) == 1 and nb.cells[parameters[0]].cell_type == "code" and parameters[0] <= 4, (
        f"{path.name}: one code cell tagged `parameters`, near the top, holds the sizes a learner may raise")
    headings = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert any(s.lstrip().startswith("## Summary") for s in headings[-3:]), f"{path.name} ends with a summary"
    assert any(s.lstrip().startswith("## Questions") for s in headings[-3:]), f"{path.name} ends with questions"


def test_every_question_has_an_answer_to_reveal(chapter):
    """A learner alone can check their thinking: each numbered question is followed by its answer in a
    collapsed `<details>` block (collapsed in JupyterLab and on GitHub alike)."""
    path, nb = chapter
    questions = next(c.source for c in nb.cells if c.cell_type == "markdown" and c.source.lstrip().startswith("## Questions"))
    numbered = re.findall(r"^(\d+)\. ", questions, flags=re.MULTILINE)
    assert numbered, f"{path.name}: the questions are a numbered list"
    # Split at each question: every piece holds exactly one answer, opened and closed.
    pieces = re.split(r"^\d+\. ", questions, flags=re.MULTILINE)[1:]
    for number, piece in zip(numbered, pieces, strict=True):
        assert re.search(r"<details>\s*<summary>Answer</summary>.+?</details>", piece, flags=re.DOTALL), (
            f"{path.name}: question {number} has no answer in a <details><summary>Answer</summary> ... </details> block")


def test_small_and_offline(chapter):
    path, nb = chapter
    assert path.stat().st_size <= MAX_BYTES, f"{path.name} is {path.stat().st_size:,} bytes; shrink its outputs"
    for cell in nb.cells:
        assert not NETWORK.search(cell.source), f"{path.name} loads something from the network:\n{cell.source[:200]}"
        if cell.cell_type == "code":
            assert not HUB_ID.search(cell.source), f"{path.name} downloads from a hub:\n{cell.source[:200]}"
            for output in cell.get("outputs", []):
                for text in _texts(output):
                    assert not NETWORK.search(text), f"{path.name}: an output loads from the network"


def test_outputs_hold_no_machine_paths(chapter):
    """Stored outputs are compared on every machine: an absolute path would only match on this one."""
    path, nb = chapter
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            for text in _texts(output):
                for local in (str(ROOT), "site-packages", "/home/", "/tmp/"):
                    assert local not in text, f"{path.name}: an output names {local!r}:\n{cell.source[:200]}"


def test_figures_are_stored(chapter):
    """With MPLBACKEND=Agg, `%matplotlib inline` stores '<Figure ...>' without the picture."""
    path, nb = chapter
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "".join(data.get("text/plain", "")).startswith("<Figure size"):
                assert "image/png" in data, f"{path.name}: a figure was stored without its image"


def test_outputs_are_json_clean(chapter):
    path, _ = chapter
    raw = json.loads(path.read_text(encoding="utf-8"))
    for cell in raw["cells"]:
        assert "execution" not in cell.get("metadata", {}), f"{path.name}: timing metadata stored"


def test_findings_are_said_in_words(chapter):
    """A chapter states what it found ("layer 3's heads put 41% of their attention on [SEP]"), with
    the stored output as its proof: "printed above" or "(asserted)" never stands in for the finding."""
    path, nb = chapter
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    found = re.findall(r"[^\n]*(?:printed above|\basserted\b)[^\n]*", prose)
    assert not found, f"{path.name}: say the finding instead of: {found[:3]}"


MAIN_LINE_WORDS = 3000  # about an hour's reading with the code and figures: the rest is folded


def main_line_words(nb) -> int:
    """The words a learner reads on a chapter's main line: its markdown outside folded sections
    (`<details>…</details>`, "For implementers"), without HTML tags and link targets."""
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    prose = re.sub(r"<details>.*?</details>", " ", prose, flags=re.S)
    prose = re.sub(r"<[^>]+>", " ", prose)
    prose = re.sub(r"\]\([^)]*\)", "]", prose)  # [text](target): the text is read, the target is not
    return len([w for w in prose.split() if re.search(r"\w", w)])


def test_the_main_line_reads_in_about_an_hour(chapter):
    path, nb = chapter
    words = main_line_words(nb)
    assert words <= MAIN_LINE_WORDS, (
        f"{path.name}: {words:,} words outside folded sections (at most {MAIN_LINE_WORDS:,}); fold implementer "
        "detail into a <details><summary>For implementers: …</summary> section, or say it in fewer words")
