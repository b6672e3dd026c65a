"""What a learner does, in a real browser: `make course`, a chapter run, bertviz, an exercise checked.

JupyterLab is started the way `make course` starts it (notebooks/course.py: the same workspace code,
the same command and environment), on a temporary copy of the learner's workspace, and driven by
headless Chromium through selenium. The test installs nothing: `make test` installs Debian's
`chromium` and `chromium-driver` when it can, and selenium is pinned in pyproject.toml. Every request
the page makes is recorded (Chrome's performance log) and must stay on this machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "notebooks"))
import course  # noqa: E402

# The chapter a learner runs here (the quickest to run in full), found by number, not by title.
RUN_CHAPTER = "02"
# Where requests may go: this machine, and what the page makes itself.
LOCAL = re.compile(r"^(?:(?:https?|wss?)://(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?/|data:|blob:|about:)")
EXERCISE = re.compile(r"^## Exercise (\d+\.\d+)", re.MULTILINE)
# A relative link in markdown (`[text](target)` or `href="target"`), or a relative path a cell reads.
MD_LINK = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")
CODE_PATH = re.compile(r"[\"'](\.\./[^\"'\s]+)[\"']")


def _hashes(*paths: Path) -> dict[str, str]:
    """The course's own notebooks, as they are: running the learner's copies must leave them alone."""
    return {str(p): hashlib.sha256((ROOT / p).read_bytes()).hexdigest() for p in paths}


def _notebook(folder: str, number: str) -> Path:
    found = sorted((ROOT / folder).glob(f"{number}_*.ipynb"))
    assert found, f"no {folder}/{number}_*.ipynb"
    return found[0].relative_to(ROOT)


# ---------------------------------------------------------------- the learner's workspace, no browser


def test_workspace_mirrors_the_course_and_keeps_the_learners_work(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))  # the trust database
    workspace = tmp_path / "course"
    assert course.prepare(workspace) == []
    for name in course.course_notebooks(ROOT):
        assert (workspace / name).read_bytes() == (ROOT / name).read_bytes(), name
    for name in course.LINKED:
        assert (workspace / name).is_symlink() and (workspace / name).resolve() == (ROOT / name).resolve()
    # Fresh copies are trusted: JupyterLab runs their stored views' scripts.
    from nbformat.sign import NotebookNotary
    chapter = workspace / _notebook("notebooks", RUN_CHAPTER)
    assert NotebookNotary().check_signature(nbformat.read(chapter, as_version=4))
    # The learner's work is never overwritten; a deleted copy comes back; a newer course version is named.
    exercise = workspace / _notebook("exercises", RUN_CHAPTER)
    exercise.write_text(exercise.read_text() + " ")
    chapter.unlink()
    origin = json.loads((workspace / course.ORIGIN).read_text())
    origin[exercise.relative_to(workspace).as_posix()] = "an older version"
    (workspace / course.ORIGIN).write_text(json.dumps(origin))
    notes = course.prepare(workspace)
    assert exercise.read_text().endswith(" ") and chapter.exists()
    assert len(notes) == 1 and "newer version" in notes[0] and exercise.name in notes[0], notes


def test_every_relative_link_and_path_resolves_in_the_workspace(tmp_path, monkeypatch):
    """A chapter's link to its exercises, an exercise's to its chapter or solution, `../data/...` read by
    a cell: each leads to a file of the workspace (the learner's copies), never a 404."""
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    workspace = tmp_path / "course"
    course.prepare(workspace)
    checked, broken = 0, []
    for name in course.course_notebooks(ROOT):
        for i, cell in enumerate(nbformat.read(workspace / name, as_version=4).cells):
            if cell.cell_type == "markdown":
                targets = [a or b for a, b in MD_LINK.findall(cell.source)]
            elif cell.cell_type == "code":
                targets = CODE_PATH.findall(cell.source)
            else:
                continue
            for target in targets:
                path = urllib.parse.unquote(target.split("#")[0].split("?")[0])
                if not path or re.match(r"^[a-z][a-z0-9+.-]*:", path) or path.startswith("/"):
                    continue  # an anchor in the page, or a URL
                checked += 1
                if not (workspace / name).parent.joinpath(path).exists():
                    broken.append(f"{name} cell {i}: {target}")
    assert not broken, "links that lead nowhere in the learner's copy of the course:\n" + "\n".join(broken)
    assert checked, "no relative link found: is the link pattern still right?"


# ---------------------------------------------------------------- JupyterLab and Chromium


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log_tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab as `make course` starts it, on a temporary workspace, with its own Jupyter state."""
    tmp = tmp_path_factory.mktemp("course")
    with pytest.MonkeyPatch.context() as mp:
        # Signatures, settings, layouts and runtime files of this run stay here, not in the learner's.
        for var, sub in (("JUPYTER_DATA_DIR", "data"), ("JUPYTER_CONFIG_DIR", "config"),
                         ("JUPYTER_RUNTIME_DIR", "runtime")):
            mp.setenv(var, str(tmp / "jupyter" / sub))
        workspace = tmp / "course"
        course.prepare(workspace)
        port, token = _free_port(), os.urandom(16).hex()
        command = course.lab_command(workspace, "--no-browser", f"--port={port}", "--ServerApp.port_retries=0",
                                     f"--IdentityProvider.token={token}")
        log = tmp / "jupyterlab.log"
        with log.open("w") as out:
            process = subprocess.Popen(command, env=course.lab_environment(), stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    pytest.fail(f"JupyterLab did not start: {' '.join(command)}\n{_log_tail(log)}")
                time.sleep(0.3)
        try:
            yield SimpleNamespace(url=url, token=token, workspace=workspace, log=log, tmp=tmp)
        finally:
            process.terminate()  # JupyterLab shuts its kernels down on SIGTERM
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _chromium() -> tuple[str, str]:
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    driver = shutil.which("chromedriver") or next((p for p in ("/usr/lib/chromium/chromedriver",) if Path(p).exists()), None)
    if browser is None or driver is None:
        pytest.fail("the browser test needs Chromium and chromedriver, and this machine lacks "
                    f"{'Chromium' if browser is None else 'chromedriver'}. `make test` installs them with apt-get "
                    "(Debian's `chromium` and `chromium-driver`) when it runs as root or with sudo; otherwise install "
                    "them yourself (Ubuntu: chromium-browser chromium-chromedriver; macOS: brew install chromium "
                    "chromedriver).", pytrace=False)
    return browser, driver


@pytest.fixture
def browser(lab):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail("selenium is not installed: run `make setup` (it is pinned in pyproject.toml's test extra)",
                    pytrace=False)
    binary, driver_path = _chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-features=Translate,OptimizationHints,MediaRouter",
                # A request for anywhere but this machine goes to a closed port (and is still logged).
                "--proxy-server=127.0.0.1:9"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))  # no Selenium Manager: no download
    page = Page(driver, lab)
    try:
        yield page
    finally:
        try:
            if getattr(page, "failed", True):
                driver.save_screenshot(str(lab.tmp / f"screenshot-{int(time.time())}.png"))
        finally:
            driver.quit()


class Page:
    """A JupyterLab page in Chromium, with the few actions a learner takes."""

    def __init__(self, driver, lab):
        self.driver, self.lab, self.requests = driver, lab, []

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, condition, what: str, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while True:
            if result := condition():
                return result
            if time.monotonic() > deadline:
                shot = self.lab.tmp / f"timeout-{int(time.time())}.png"
                self.driver.save_screenshot(str(shot))
                pytest.fail(f"waited {timeout:.0f} s for {what} (screenshot: {shot})\nJupyterLab's log:\n"
                            f"{_log_tail(self.lab.log)}", pytrace=False)
            time.sleep(0.3)

    def open(self, path: Path) -> nbformat.NotebookNode:
        """Open a notebook of the workspace (alone: `reset` forgets earlier tabs); wait for all its cells."""
        nb = nbformat.read(self.lab.workspace / path, as_version=4)
        self.driver.get(f"{self.lab.url}/lab/tree/{path.as_posix()}?reset&token={self.lab.token}")
        self.wait(lambda: len(self.cells()) == len(nb.cells), f"{path}'s {len(nb.cells)} cells", 90)
        self.wait(self.kernel_idle, f"the kernel of {path} to start", 90)
        return nb

    def cells(self):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")

    def kernel_idle(self) -> bool:
        status = self.js("return [...document.querySelectorAll('.jp-StatusBar-TextItem')].map(e => e.textContent)")
        return any(s.endswith("| Idle") for s in status)

    def prompts(self) -> list[str]:
        """The prompt of each cell of the notebook shown ('' for markdown, '[ ]:', '[*]:', '[7]:')."""
        return self.js("return [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook "
                       ".jp-Cell')].map(c => (c.querySelector('.jp-InputPrompt') || {}).textContent || '')")

    def menu(self, top: str, item: str) -> None:
        """Click a menu bar entry, then an item of its menu (Lumino menus open on real mouse events)."""
        from selenium.webdriver.common.by import By
        find = self.driver.find_elements
        self.wait(lambda: [e for e in find(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel") if e.text == top], top)[0].click()
        self.wait(lambda: [e for e in find(By.CSS_SELECTOR, ".lm-Menu-itemLabel") if e.text == item],
                  f"{top} → {item}")[0].click()

    def run_and_wait(self, top: str, item: str, cells: list[int], what: str, timeout: float) -> None:
        """Run cells through a menu item; wait until each of `cells` shows an execution count, or until
        the run stops short (a cell failed: nothing runs or is queued for 5 s; the caller's asserts say which)."""
        self.menu(top, item)
        quiet_since = None

        def done() -> bool:
            nonlocal quiet_since
            prompts = self.prompts()
            busy = any("*" in p for p in prompts) or not self.kernel_idle()
            if not busy and all(re.search(r"\[\d+\]", prompts[i]) for i in cells):
                return True
            quiet_since = None if busy else quiet_since or time.monotonic()
            return quiet_since is not None and time.monotonic() - quiet_since > 5
        self.wait(done, what, timeout)

    def save(self, path: Path) -> None:
        """File → Save Notebook, and wait until the workspace's file is written."""
        file = self.lab.workspace / path
        before = file.stat().st_mtime_ns
        self.menu("File", "Save Notebook")
        self.wait(lambda: file.stat().st_mtime_ns != before, f"{path} to be saved")

    def sessions(self) -> list[str]:
        with urllib.request.urlopen(f"{self.lab.url}/api/sessions?token={self.lab.token}", timeout=10) as r:
            return [s["path"] for s in json.load(r)]

    def status_of(self, href: str) -> int:
        """What the server answers for a link JupyterLab resolved (`/files/...`): 200 if it leads somewhere."""
        path = urllib.parse.urlparse(href).path.removeprefix("/files/")
        try:
            with urllib.request.urlopen(f"{self.lab.url}/api/contents/{path}?content=0&token={self.lab.token}", timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def assert_offline(self) -> None:
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                self.requests.append(message["params"]["request"]["url"])
            elif message["method"] == "Network.webSocketCreated":
                self.requests.append(message["params"]["url"])
        assert self.requests, "no request was recorded: the performance log is not working"
        away = sorted({u[:120] for u in self.requests if not LOCAL.match(u)})
        assert not away, "requests left the machine:\n" + "\n".join(away)


def _mark_passed(page: Page) -> None:
    page.failed = False


def test_a_chapter_runs_in_the_browser_and_leads_to_the_learners_exercises(lab, browser):
    page, chapter, exercise = browser, _notebook("notebooks", RUN_CHAPTER), _notebook("exercises", RUN_CHAPTER)
    before = _hashes(chapter, exercise)
    nb = page.open(chapter)
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    page.menu("Edit", "Clear Outputs of All Cells")  # so that each count and figure shown comes from this run
    page.wait(lambda: not any(re.search(r"\d", page.prompts()[i]) for i in code_cells), "the outputs to clear")
    start = time.monotonic()
    page.run_and_wait("Run", "Run All Cells", code_cells, f"Run All of {chapter}", 240)
    seconds = time.monotonic() - start
    page.save(chapter)

    # Saved into the learner's copy: one clean top-to-bottom run, errors only where a cell shows one on purpose.
    ran = nbformat.read(lab.workspace / chapter, as_version=4)
    code = [c for c in ran.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "Run All did not run every cell once"
    errors = [c.source.splitlines()[0] for c in code if any(o.output_type == "error" for o in c.outputs)
              and "raises-exception" not in c.metadata.get("tags", [])]
    assert not errors, f"cells of {chapter} failed in the browser: {errors}"
    pngs = sum("image/png" in o.get("data", {}) for c in code for o in c.outputs)
    assert pngs, f"{chapter} drew no figure"
    widths = page.js("return [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
                     ".jp-OutputArea-output.jp-RenderedImage img')].map(i => i.complete ? i.naturalWidth : 0)")
    assert len(widths) == pngs and all(w > 0 for w in widths), f"figures on the page: {widths}, in the notebook: {pngs}"
    # The course's own notebooks were neither opened nor saved.
    assert _hashes(chapter, exercise) == before, "running the chapter changed the course's own notebooks"

    # The chapter's link to its exercises opens the learner's copy (in course/, not the tracked one).
    link = page.wait(lambda: page.js(
        "return [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown a')]"
        ".find(a => /exercises\\/[0-9]{2}_[^/]*\\.ipynb(\\?|$)/.test(a.getAttribute('href')))"),
        f"a link from {chapter} to its exercises")
    page.js("arguments[0].scrollIntoView()", link)
    link.click()
    page.wait(lambda: exercise.as_posix() in page.sessions(), f"the link to open {exercise}")
    page.assert_offline()
    print(f"\n{chapter}: Run All took {seconds:.1f} s in the browser")
    _mark_passed(page)


def test_an_exercise_shows_its_checkers_message(lab, browser):
    page, exercise = browser, _notebook("exercises", RUN_CHAPTER)
    before = _hashes(exercise)
    nb = page.open(exercise)
    check = next(i for i, c in enumerate(nb.cells) if "check" in c.metadata.get("tags", []))
    number = EXERCISE.findall("\n".join(c.source for c in nb.cells[:check] if c.cell_type == "markdown"))[-1]
    cell = page.cells()[check]
    page.js("arguments[0].scrollIntoView()", cell)
    from selenium.webdriver.common.by import By
    cell.find_element(By.CSS_SELECTOR, ".jp-InputPrompt").click()
    above = [i for i, c in enumerate(nb.cells[:check]) if c.cell_type == "code"]
    page.run_and_wait("Run", "Run All Above Selected Cell", above, "the set-up and the exercise cells", 120)
    page.run_and_wait("Run", "Run Selected Cell and Do not Advance", [check], "the check cell", 120)
    shown = page.wait(lambda: " ".join(e.text for e in cell.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output")),
                      "the checker's message")
    assert f"Exercise {number}" in shown and "NotImplementedError" in shown, shown
    # Every link of the exercise notebook (to its chapter, to the solutions) leads to a file of the workspace.
    hrefs = page.js("return [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) "
                    ".jp-RenderedMarkdown a')].map(a => a.href).filter(h => h.includes('/files/'))")
    broken = [h for h in hrefs if page.status_of(h) != 200]
    assert not broken, f"links in {exercise} that lead nowhere: {broken}"
    assert _hashes(exercise) == before, "running an exercise changed the course's own notebook"
    page.assert_offline()
    _mark_passed(page)


def test_bertviz_view_draws_with_no_request_leaving_the_machine(lab, browser):
    """The stored interactive view shows before anything is run (the copy is trusted), from inlined d3."""
    chapters = [p.relative_to(ROOT) for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
                if 'id=\\"bertviz-' in p.read_text(encoding="utf-8")]
    assert chapters, "no chapter stores a bertviz view"
    page = browser
    page.open(chapters[0])
    drawn = page.wait(lambda: page.js(
        "return [...document.querySelectorAll('[id^=\"bertviz-\"]')]"
        ".map(e => [...e.querySelectorAll('svg')].reduce((n, s) => n + s.querySelectorAll('*').length, 0))"
        ".filter(n => n > 0)"), f"bertviz's view in {chapters[0]} to draw", 90)
    assert all(n > 10 for n in drawn), drawn
    page.assert_offline()
    _mark_passed(page)
