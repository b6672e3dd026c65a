"""The search for a course BERT that reads context on two CPU cores: every knob tried, at equal CPU time.

    .venv/bin/python results/pretrain/search.py              # run what is missing, then write the results
    .venv/bin/python results/pretrain/search.py --minutes 5  # the training time each probe gets (default)
    .venv/bin/python results/pretrain/search.py --only short # the probes whose names start so

Each probe is `python -m minibert.pretrain --config tiny` with some flags changed. A probe first runs
20 steps to measure its speed on this machine, then gets as many steps as fit in `--minutes` of
training, so every probe spends the same CPU time, with its warm-up and linear decay spread over
them. Its held-out split is scored at [MASK] positions against the count floors of
`minibert.pretrain.baselines` on the same positions: a probe that does not beat the both-neighbour
table reads no more context than counting does. A probe whose run finished is kept; delete
`runs/search/NAME` to run it again. The results (and the command of every run) go to
`results/pretrain/recipe-search.json`.
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from minibert.pretrain import read_log  # noqa: E402
from minibert.pretrain.__main__ import parse  # noqa: E402
from minibert.pretrain.baselines import neighbour_floors  # noqa: E402
from minibert.repository import code_version  # noqa: E402

RUNS = ROOT / "runs" / "search"
OUT = ROOT / "results" / "pretrain" / "recipe-search.json"
# BERT's knobs and the small-compute literature's (Cramming; Izsak et al. 2021; BabyLM), one change
# at a time from the course recipe, then together.
LEAN = ["--no-nsp", "--model.hidden_dropout_prob", "0", "--model.attention_probs_dropout_prob", "0"]
SHORT = ["--max-seq-length", "32", "--max-predictions", "5", "--batch-size", "256"]
PROBES: dict[str, tuple[str, list[str]]] = {
    "course": ("the tiny preset, the course recipe before this search: L2/H128, 128 tokens, batch 32, "
               "lr 1e-3, NSP, dropout 0.1", []),
    "lean": ("NSP and dropout off (Cramming; RoBERTa drops NSP)", LEAN),
    "short-32": ("lean, 32-token sequences, batch 256", LEAN + SHORT),
    "short-64": ("lean, 64-token sequences, batch 128",
                 LEAN + ["--max-seq-length", "64", "--max-predictions", "10", "--batch-size", "128"]),
    "short-32-lr3e-3": ("short-32 at lr 3e-3", LEAN + SHORT + ["--lr", "3e-3"]),
    "short-32-mini": ("short-32 with L4/H256 (about 5x the FLOPs a token)", LEAN + SHORT + ["--model", "mini"]),
    "short-32-nsp": ("short-32 with NSP back on", SHORT + LEAN[1:]),
    "lean-batch128": ("lean, batch 128 at lr 2e-3", LEAN + ["--batch-size", "128", "--lr", "2e-3"]),
}
# The frontier: the best probe run longer (minutes), then BERT's two phases (§3.1, A.2): the
# positions past 32 learnt at 128 tokens, starting from phase 1's weights.
LONG: dict[str, tuple[str, list[str], float]] = {
    "long-32": ("short-32-lr3e-3 for 35 minutes: phase 1", LEAN + SHORT + ["--lr", "3e-3"], 35.0),
    "long-128": ("phase 2: 128-token sequences for 8 minutes from long-32's weights (lr 1e-3)",
                 LEAN + ["--init-from", "runs/search/long-32/final", "--lr", "1e-3"], 8.0),
}
FIXED = ["--config", "tiny", "--no-progress", "--no-tensorboard", "--keep-last", "1"]


def command(name: str, flags: list[str], steps: int, out: str | None = None) -> list[str]:
    """The run of probe `name` with `steps` steps: warm-up 5%, six evaluations of the whole split."""
    return ["python", "-m", "minibert.pretrain", *FIXED, *flags, "--out-dir", out or f"runs/search/{name}",
            "--max-steps", str(steps), "--warmup-steps", str(max(1, steps // 20)),
            "--eval-every", str(max(1, steps // 6)), "--save-every", str(steps), "--log-every", "10"]


def steps_per_second(name: str, flags: list[str]) -> float:
    """20 steps of the probe, timed by its own log (steps 11-20: the first ones pay for start-up)."""
    out = RUNS / "_speed" / name
    shutil.rmtree(out, ignore_errors=True)  # this script's own scratch
    speed_run = [*command(name, flags, 20, out=str(out))[1:], "--eval-every", "1000"]  # no evaluation to wait for
    subprocess.run([sys.executable, *speed_run], cwd=ROOT, check=True, capture_output=True)
    train = read_log(out, "train")
    return (train[1]["step"] - train[0]["step"]) / (train[1]["seconds"] - train[0]["seconds"])


def run(name: str, flags: list[str], minutes: float) -> list[str]:
    folder = RUNS / name
    if (folder / "final").is_dir():
        return shlex.split(read_log(folder, "run")[0]["command"])
    rate = steps_per_second(name, flags)
    cmd = command(name, flags, int(rate * minutes * 60))
    print(f"{name}: {rate:.2f} steps/s -> {cmd[cmd.index('--max-steps') + 1]} steps", flush=True)
    subprocess.run([sys.executable, *cmd[1:]], cwd=ROOT, check=True)
    return cmd


def result(name: str, about: str, cmd: list[str]) -> dict:
    log = read_log(RUNS / name)
    header, end = log[0], log[-1]
    cfg, _ = parse(cmd[3:])
    train = [r for r in log if r["kind"] == "train"]
    curve = [{"step": e["step"], "tokens": e["tokens"],
              "minutes": next((t["seconds"] for t in train if t["step"] >= e["step"]), end["seconds"]) / 60,
              **{k: e[k] for k in e if k.startswith("mlm_") or k.startswith("nsp_")}}
             for e in log if e["kind"] == "eval"]
    return {"name": name, "about": about, "command": shlex.join(cmd), "minutes": end["seconds"] / 60,
            "tokens": end["tokens"], "parameters": header["parameters"], "final": curve[-1], "curve": curve,
            "floors": neighbour_floors(cfg)}


def provenance() -> dict:
    return {**code_version(), "device": f"{platform.machine()}, {torch.get_num_threads()} CPU threads", "torch": torch.__version__,
            "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--minutes", type=float, default=5.0, help="training time of each probe")
    args.add_argument("--only", default="", help="run only the probes whose names start with this")
    args = args.parse_args()
    done = {}
    for name, about, flags, minutes in [*((n, a, f, args.minutes) for n, (a, f) in PROBES.items()),
                                        *((n, *v) for n, v in LONG.items())]:
        if name.startswith(args.only):
            done[name] = result(name, about, run(name, flags, minutes))
    old = json.loads(OUT.read_text())["probes"] if OUT.is_file() else []
    probes = [*[p for p in old if p["name"] not in done], *done.values()]
    OUT.write_text(json.dumps({"minutes_each": args.minutes, **provenance(), "probes": probes}, indent=1) + "\n")
    for p in probes:
        f = p["final"]
        print(f"{p['name']:16} {p['tokens'] / 1e6:6.1f}M tokens  [MASK] {f.get('mlm_accuracy_at_mask', 0):.1%} "
              f"(both-neighbour floor {p['floors']['both']['mask']:.1%})  all {f['mlm_accuracy']:.1%}")


if __name__ == "__main__":
    main()
