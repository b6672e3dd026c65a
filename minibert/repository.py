"""Where the course keeps its own files (this checkout's data/, models/, results/), and which version
of the code is running: every stored result records it, so it can be re-made from that commit.

    ROOT, DATA, MODELS, RESULTS     folders of the checkout minibert is imported from
    code_version()                  {"commit": the git commit, "clean": no uncommitted change in minibert/}

Outside a git checkout (an installed wheel, a copy without .git) both values are None: unknown,
never guessed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
MODELS = ROOT / "models"
RESULTS = ROOT / "results"


def code_version(root: Path = ROOT) -> dict:
    """The commit the code runs from, and whether minibert/ has changes not in it (then the commit
    alone cannot re-make a result)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True,
                              timeout=30).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no", "--", "minibert")
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "clean": None}
    return {"commit": commit, "clean": changed == ""}
