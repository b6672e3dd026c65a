"""One run at a time in a folder. A run claims its folder before it reads or writes anything there,
and holds it until it ends:

    with claimed(out, accelerator, check=refuse_or_start) as start:   # a second run fails here, at once
        ...                                                            # (`start`: what `check` returned)

The claim is a lock on `<folder>/run.lock` (`fcntl.flock`), which holds the claiming process's id.
The operating system drops the lock when that process (and any worker it forked) ends, however it
ends, so a run that was killed leaves no claim behind: `--resume` of its folder just works. The check "does this folder
already hold a run?" is made under the claim (`check`), never before it: two runs started together
cannot both see an empty folder and both write into it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from pathlib import Path

LOCK_FILE = "run.lock"


class FolderInUse(FileExistsError):
    """Another process is running in the folder."""


@contextlib.contextmanager
def claimed(folder: str | Path, accelerator=None, *, check=None):
    """Hold `folder` for one run; yields what `check()` returns (None without one).

    With several processes (`accelerator`), the main process claims and checks; its verdict, a
    refusal or the result, reaches every process, so all start or all stop. A folder the claim
    created (and any parent it created) is removed again if the run leaves nothing in it: a refused
    run changes nothing."""
    main = accelerator is None or accelerator.is_main_process
    claim, verdict = None, [None, None]  # (the refusal, what check returned)
    if main:
        try:
            claim = Claim(Path(folder))
            verdict[1] = check() if check is not None else None
        except BaseException as e:
            if claim is not None:
                claim.release()
            if not isinstance(e, Exception):  # an interrupt: no verdict to share
                raise
            verdict[0] = e  # a refusal: sent to every process, then raised in each
    if accelerator is not None and accelerator.num_processes > 1:
        from accelerate.utils import broadcast_object_list

        verdict = broadcast_object_list(verdict)
    if verdict[0] is not None:
        raise verdict[0]
    try:
        yield verdict[1]
    finally:
        if claim is not None:
            claim.release()


class Claim:
    """The lock on `<folder>/run.lock`, taken without waiting; FolderInUse names who holds it."""

    def __init__(self, folder: Path):
        self.path, self.fd = folder / LOCK_FILE, None
        self.made = [p for p in (folder, *folder.parents) if not p.exists()]  # the folder first, then parents
        folder.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 200).decode(errors="replace").strip() or "a process that is starting"
                os.close(fd)
                self._remove_made()
                raise FolderInUse(f"{folder} is in use by another run ({holder}); wait for it to end, or "
                                  "choose another --out-dir (nothing was changed)") from None
            # The holder before us may have removed the file between our open and our lock: then
            # this lock is on a file nobody else will see, so take the one at the path again.
            if _same_file(fd, self.path):
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"process {os.getpid()} on {socket.gethostname()}\n".encode())
        self.fd = fd

    def release(self) -> None:
        """Remove run.lock (while still holding it), then let go."""
        if self.fd is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        os.close(self.fd)
        self.fd = None
        self._remove_made()

    def _remove_made(self) -> None:
        for folder in self.made:
            try:
                folder.rmdir()
            except OSError:  # not empty: the run wrote there, and it stays
                return


def _same_file(fd: int, path: Path) -> bool:
    try:
        here = os.stat(path)
    except FileNotFoundError:
        return False
    there = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)
