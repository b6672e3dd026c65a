"""The stored recipe search (results/pretrain/recipe-search.json) against today's repository and the
page that quotes it (docs/pretraining.md)."""

import importlib.util
import json
import shlex
from pathlib import Path

import pytest

from minibert.pretrain.__main__ import parse

ROOT = Path(__file__).resolve().parents[1]
DOC = json.loads((ROOT / "results" / "pretrain" / "recipe-search.json").read_text())
_spec = importlib.util.spec_from_file_location("search", ROOT / "results" / "pretrain" / "search.py")
search = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(search)


def readme_row(probe: dict) -> str:
    """How docs/pretraining.md's tables show a probe: each row is the file's numbers, rounded."""
    f, floor = probe["final"], probe["floors"]["both"]["mask"]
    return (f"| `{probe['name']}` | {probe['about']} | {probe['minutes']:.1f} | {probe['tokens'] / 1e6:.1f}M | "
            f"{f['mlm_accuracy_at_mask']:.1%} | {f['mlm_accuracy']:.1%} | {floor:.1%} |")


@pytest.mark.parametrize("probe", DOC["probes"], ids=lambda p: p["name"])
def test_each_probe_is_the_command_it_names(probe):
    about, flags, *minutes = search.PROBES.get(probe["name"]) or search.LONG[probe["name"]]
    argv = shlex.split(probe["command"])
    assert argv[:3] == ["python", "-m", "minibert.pretrain"] and probe["about"] == about
    assert shlex.join(flags) in shlex.join(argv)  # the knobs the search names, as given
    cfg, _ = parse(argv[3:])  # it still parses into settings today
    assert cfg.out_dir == f"runs/search/{probe['name']}" and cfg.max_steps == probe["final"]["step"]
    # Equal CPU time: each probe trained for the minutes it was given, within 15%.
    assert probe["minutes"] == pytest.approx(minutes[0] if minutes else DOC["minutes_each"], rel=0.15)
    steps = [point["step"] for point in probe["curve"]]
    assert steps == sorted(steps) and probe["curve"][-1] == probe["final"]
    floors = probe["floors"]
    assert floors["unigram"]["mask"] < floors["left"]["mask"] < floors["both"]["mask"]


def test_the_readme_quotes_the_file():
    readme = (ROOT / "docs" / "pretraining.md").read_text(encoding="utf-8")
    for probe in DOC["probes"]:
        assert readme_row(probe) in readme, f"docs/pretraining.md's row of {probe['name']} is not the file's:\n{readme_row(probe)}"
    assert DOC["commit"] and DOC["clean"] is True
