"""A run's log, pre-training and fine-tuning alike: one JSON object per line in `log.jsonl`
(readable without a server, for plots in a notebook) and the same numbers in TensorBoard
(`tensorboard --logdir runs`). Only the main process writes.

Records have a "kind": "run" (the settings and data facts, first), "train" (every `log_every`
steps), "eval" (held-out metrics), "checkpoint", "diverged", "end". Every record has "step" and
"tokens" (input positions seen so far, over all processes), the x-axis of the reference curves.
"""

from __future__ import annotations

import json
from pathlib import Path


class RunLog:
    def __init__(self, out_dir: str | Path, *, enabled: bool, tensorboard: bool):
        self.out_dir, self.path = Path(out_dir), Path(out_dir) / "log.jsonl"
        self.enabled, self.tensorboard, self.writer = enabled, tensorboard, None

    def write(self, kind: str, **record) -> None:
        """Append one record. Nothing touches the disk before the first record: a run refused
        while it starts leaves its folder as it was."""
        if not self.enabled:
            return
        record = {"kind": kind, **record}
        self.out_dir.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, default=_plain) + "\n")
        if self.tensorboard and self.writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.out_dir / "tensorboard"))
        if self.writer is not None and "step" in record:
            for key, value in record.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool) and key != "step":
                    self.writer.add_scalar(f"{kind}/{key}", value, record["step"])
            self.writer.flush()

    def truncate_after(self, step: int) -> None:
        """On resume from step k, drop the records a killed run wrote after its checkpoint at k,
        so the log reads as one run."""
        if self.enabled and self.path.is_file():
            kept = [r for r in read_log(self.path) if r.get("step", 0) <= step and r["kind"] != "end"]
            self.path.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def _plain(value):
    if hasattr(value, "item"):  # a tensor or numpy scalar
        return value.item()
    return str(value)


def read_log(path: str | Path, kind: str | None = None) -> list[dict]:
    """The records of a log.jsonl (a file or a run folder), optionally only those of one kind."""
    path = Path(path)
    path = path / "log.jsonl" if path.is_dir() else path
    if not path.is_file():
        raise FileNotFoundError(f"no training log at {path}; a run writes one to <out_dir>/log.jsonl")
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in records if kind is None or r["kind"] == kind]
