"""The version of the code a stored result records (minibert/repository.py): the commit, and whether
minibert/ had changes not in it; unknown (None) outside a git checkout, never guessed."""

import subprocess

from minibert.repository import ROOT, code_version


def git(folder, *args):
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def test_a_checkout_reports_its_commit_and_whether_minibert_changed(tmp_path):
    (tmp_path / "minibert").mkdir()
    (tmp_path / "minibert" / "model.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("mine\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "minibert")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert code_version(tmp_path) == {"commit": head, "clean": True}  # an untracked notes.txt changes nothing
    (tmp_path / "notes.txt").write_text("changed\n")
    assert code_version(tmp_path)["clean"] is True                     # outside minibert/: still the same code
    (tmp_path / "minibert" / "model.py").write_text("x = 2\n")
    assert code_version(tmp_path) == {"commit": head, "clean": False}  # the commit alone no longer re-makes it


def test_outside_a_checkout_the_version_is_unknown(tmp_path):
    assert code_version(tmp_path) == {"commit": None, "clean": None}


def test_this_checkout_has_a_commit():
    version = code_version()
    assert ROOT.joinpath("minibert", "repository.py").is_file()
    assert version["commit"] is None or len(version["commit"]) == 40
