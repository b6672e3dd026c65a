"""The README is a front door: short, with the two commands, and every page it moved out linked
from it; and every relative link of the course's pages leads somewhere (the file, and the heading
an #anchor names)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "minibert" / "README.md", ROOT / "notebooks" / "README.md",
         ROOT / "exercises" / "README.md", ROOT / "results" / "README.md", ROOT / "data" / "README.md",
         ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def words(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split())


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text, fence, found = path.read_text(encoding="utf-8"), False, set()
    for line in text.splitlines():
        fence = fence != line.startswith("```")
        if not fence and (m := re.match(r"#{1,6} (.*)", line)):
            found.add(slug(m[1]))
    return found


def test_the_readme_is_a_front_door():
    assert words(ROOT / "README.md") <= 2_500
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in [*(ROOT / "docs").glob("*.md"), ROOT / "minibert" / "README.md", ROOT / "notebooks" / "README.md"]:
        assert f"]({page.relative_to(ROOT)}" in readme, f"the README does not link {page.relative_to(ROOT)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # links in code are code
    broken = []
    for target in LINK.findall(text):
        if re.match(r"(https?|mailto):", target):
            continue
        file, _, anchor = target.partition("#")
        where = (page.parent / file).resolve() if file else page
        if not where.exists():
            broken.append(f"{target}: no {where}")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no heading '#{anchor}' in {where.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)
