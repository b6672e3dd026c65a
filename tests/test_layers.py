"""The package's import rules (minibert/README.md, "Where things go"), read from the code with `ast`.

A room is a top-level module or package of minibert (`model`, `heads`, `tokenizer`, ...). Every
import counts, also one inside a function: a lazy import is still a dependency.
"""

import ast
import math
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "minibert"
README = PACKAGE / "README.md"

# What the encoder and its heads stand on: nothing that trains, teaches or draws.
MODEL_ROOMS = {"model", "heads"}
MODEL_MAY_IMPORT = {"config", "inputs", "model", "checkpoint", "heads"}
TOKENIZER_MAY_IMPORT = {"tokenizer", "hub"}
# The rooms above the core: loops, measurements of trained models, checkers, pictures, the paper's numbers.
UPPER = {"training", "pretrain", "finetune", "ablations", "analysis", "check", "viz", "attention_view", "paper"}
LOOPS = {"pretrain", "finetune"}


def room_of(path: Path, root: Path) -> str:
    """minibert/heads/classification.py -> "heads"; minibert/model.py -> "model"."""
    first = path.relative_to(root).parts[0]
    return first.removesuffix(".py")


def imported_rooms(path: Path, root: Path) -> set[str]:
    """The rooms of the package that `path` imports (relative and absolute imports alike)."""
    package = ".".join((root.name, *path.relative_to(root).parent.parts))
    rooms = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # `from . import seeding` names a room, `from .config import X` a member of one: either
            # way the room is the second name of `module.alias`.
            targets = [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            parts = target.split(".")
            if parts[0] == root.name and len(parts) > 1:
                rooms.add(parts[1])
    return rooms


def graph(root: Path) -> dict[str, set[str]]:
    """Room -> the other rooms it imports. The package's face (`__init__.py`) is left out."""
    paths = sorted(root.rglob("*.py"))
    rooms = {room_of(path, root) for path in paths} - {"__init__", "__main__"}
    edges: dict[str, set[str]] = {}
    for path in paths:
        room = room_of(path, root)
        if room in rooms:
            edges.setdefault(room, set()).update(imported_rooms(path, root) & rooms - {room})
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    found, state = [], {}

    def visit(room, trail):
        state[room] = "open"
        for nxt in sorted(edges.get(room, ())):
            if state.get(nxt) == "open":
                found.append(trail[trail.index(nxt):] + [nxt] if nxt in trail else [room, nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[room] = "done"

    for room in sorted(edges):
        if room not in state:
            visit(room, [room])
    return found


def violations(root: Path) -> list[str]:
    edges = graph(root)
    found = []
    for room, imports in sorted(edges.items()):
        if room in MODEL_ROOMS and (bad := imports - MODEL_MAY_IMPORT):
            found.append(f"{room} imports {sorted(bad)}: the model and heads import only {sorted(MODEL_MAY_IMPORT)}")
        if room == "tokenizer" and (bad := imports - TOKENIZER_MAY_IMPORT):
            found.append(f"tokenizer imports {sorted(bad)}: it imports only itself and hub")
        if room not in UPPER and (bad := imports & UPPER):
            found.append(f"{room} (core) imports {sorted(bad)}: no core room imports {sorted(UPPER)}")
        if room != "check" and "check" in imports:
            found.append(f"{room} imports check: nothing imports the exercise checkers")
        if room in LOOPS and (bad := imports & (LOOPS - {room})):
            found.append(f"{room} imports {sorted(bad)}: pretrain and finetune never import each other")
        if room != "ablations" and "ablations" in imports:
            found.append(f"{room} imports ablations: the ablations stand on both loops, and nothing stands on them")
        if room == "training" and (bad := imports & (UPPER - {"training"})):
            found.append(f"training imports {sorted(bad)}: what every loop shares stands below the loops")
    found += [f"import circle: {' -> '.join(c)}" for c in cycles(edges)]
    return found


def test_the_package_keeps_its_import_rules():
    assert violations(PACKAGE) == []


def test_every_rule_fires_on_a_package_that_breaks_it(tmp_path):
    """The rules can fail: a made-up package breaking each one is caught, each with its reason."""
    root = tmp_path / "minibert"
    files = {
        "config.py": "",
        "model.py": "from .pretrain import loop\n",              # the model reaching up to a loop
        "heads/__init__.py": "",
        "heads/tagging.py": "from ..tokenizer import Tokenizer\n",
        "tokenizer/__init__.py": "",
        "tokenizer/fast.py": "def f():\n    from ..corpus import x\n",  # lazily, still counted
        "corpus.py": "from minibert import viz\n",
        "viz.py": "from . import check\n",
        "check/__init__.py": "",
        "pretrain/__init__.py": "from ..finetune import sweep\n",
        "finetune/__init__.py": "from ..pretrain import data\n",
        "training/__init__.py": "from ..pretrain import recipes\n",
        "analysis.py": "from .ablations import tables\n",
        "ablations/__init__.py": "",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    found = "\n".join(violations(root))
    for expected in ["model imports ['pretrain']", "heads imports ['tokenizer']", "tokenizer imports ['corpus']",
                     "corpus (core) imports ['viz']", "viz imports check", "pretrain imports ['finetune']",
                     "finetune imports ['pretrain']", "training imports ['pretrain']", "analysis imports ablations",
                     "import circle: finetune -> pretrain -> finetune"]:
        assert expected in found, f"{expected!r} not reported in:\n{found}"


def floors_of(readme: str) -> dict[str, float]:
    """The README's table of floors: room -> floor (the top floor is math.inf)."""
    floors = {}
    for floor, paths in re.findall(r"^\| (\d+|top) \| ((?:`minibert/[\w.]+/?`(?:, )?)+) \|", readme, re.M):
        for room in re.findall(r"`minibert/(\w+)(?:\.py|/)`", paths):
            floors[room] = math.inf if floor == "top" else int(floor)
    return floors


def floor_violations(root: Path, floors: dict[str, float]) -> list[str]:
    """Every import arrow that does not go down a floor (or that leaves a room the table lacks), named."""
    def name(f):
        return "top" if f == math.inf else f"floor {f}"

    edges = graph(root)
    found = [f"{room} has no floor in the README's table" for room in sorted(edges.keys() - floors.keys())]
    for room, imports in sorted(edges.items()):
        for other in sorted(imports & floors.keys()):
            if room in floors and floors[other] >= floors[room]:
                how = "up" if floors[other] > floors[room] else "across its floor"
                found.append(f"{room} ({name(floors[room])}) -> {other} ({name(floors[other])}): an import {how}")
    return found


def test_every_import_goes_down_a_floor_of_the_readmes_table():
    floors = floors_of(README.read_text(encoding="utf-8"))
    assert {"config", "stats", "model", "heads", "pretrain", "check", "viz", "ablations"} <= floors.keys()
    assert {room for room, f in floors.items() if f == math.inf} == {"ablations", "check", "viz", "attention_view"}
    assert floor_violations(PACKAGE, floors) == []


def test_the_floors_fail_naming_the_arrow(tmp_path):
    """Planted: the model importing a head (up), a head importing analysis (across its floor), a
    checker importing the pictures (across the top floor), and a room the table does not list."""
    root = tmp_path / "minibert"
    files = {"model.py": "from .heads import x\n", "heads.py": "from . import analysis\n", "analysis.py": "",
             "check.py": "def f():\n    from .viz import y\n", "viz.py": "", "extra.py": "from . import model\n"}
    for file, text in files.items():
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        (root / file).write_text(text)
    floors = {"model": 3, "heads": 4, "analysis": 4, "check": math.inf, "viz": math.inf}
    assert floor_violations(root, floors) == [
        "extra has no floor in the README's table",
        "check (top) -> viz (top): an import across its floor",
        "heads (floor 4) -> analysis (floor 4): an import across its floor",
        "model (floor 3) -> heads (floor 4): an import up"]


@pytest.mark.parametrize("path", sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")))
def test_no_package_file_is_over_300_lines(path):
    lines = len((PACKAGE / path).read_text(encoding="utf-8").splitlines())
    assert lines <= 300, f"minibert/{path} has {lines} lines; split it by concept (minibert/README.md, 'Where things go')"
