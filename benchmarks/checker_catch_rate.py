"""How often the exercise checkers catch a learner's mistake: every checker on every bug of
`checker_bugs/` (learners' functions with one realistic mistake each, kept apart from the tests) and
on every correct variant (written in another style than the solution: a failure there is a false
alarm).

A bug is caught when the checker fails it: it raises (an ExerciseError naming the mistake, or any
other exception: counted apart as "crash", since the learner then reads a traceback rather than a
named mistake). A bug the checker passes is missed. A hang past --timeout counts as missed.

Prints, per exercise and overall, caught / total for the dev and held-out bugs apart, false alarms on
the correct variants, and the bugs missed; writes every outcome, with the first line of the checker's
message, to benchmarks/results/checker_catch_rate.json (--json PATH to change, --json '' for none).

Run:  python benchmarks/checker_catch_rate.py                      # every split
      python benchmarks/checker_catch_rate.py --split dev          # dev bugs (and the correct variants)
      python benchmarks/checker_catch_rate.py --exercise 2.2 --exercise 8.4
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import signal
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch

from checker_bugs import entries
from timing import write_results

from minibert import check
from minibert.check import ExerciseError
from minibert.repository import code_version

RESULTS = Path(__file__).resolve().parent / "results" / "checker_catch_rate.json"


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _timed_out(error: BaseException) -> bool:
    """Whether the alarm is behind `error`: checkers wrap what the learner's function raised in their own error."""
    seen = error
    while seen is not None:
        if isinstance(seen, _Timeout) or "raised _Timeout" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def run_one(entry, timeout: int) -> dict:
    """Run entry's checker on entry's function: outcome "caught", "crash", "passed" or "timeout"."""
    random.seed(0)
    torch.manual_seed(0)
    grad_mode, default_dtype = torch.is_grad_enabled(), torch.get_default_dtype()  # a bug may change them for good
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            getattr(check, entry.checker)(entry.fn)
        outcome, message = "passed", ""
    except _Timeout:
        outcome, message = "timeout", f"no answer within {timeout} s"
    except ExerciseError as e:  # a checker that reports the alarm as the learner's error has not caught anything
        outcome, message = ("timeout", f"no answer within {timeout} s") if _timed_out(e) else ("caught", str(e))
    except Exception as e:  # the checker itself broke on this function
        outcome, message = "crash", f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
        torch.set_grad_enabled(grad_mode)  # each function runs in the state a fresh kernel has
        torch.set_default_dtype(default_dtype)
    first = message.strip().splitlines()[0] if message.strip() else ""
    return dict(exercise=entry.exercise, checker=entry.checker, name=entry.name, kind=entry.kind,
                split=entry.split, batch=entry.batch, mistake=entry.mistake, outcome=outcome, message=first,
                seconds=round(time.perf_counter() - t0, 2))


def _rate(rows) -> str:
    caught = sum(r["outcome"] in ("caught", "crash") for r in rows)
    return f"{caught}/{len(rows)}" if rows else "-"


def summarise(rows: list[dict]) -> dict:
    """Per exercise and overall: caught / total per split, false alarms on the correct variants."""
    by_exercise = defaultdict(list)
    for r in rows:
        by_exercise[r["exercise"]].append(r)
    out = {}
    for ex, rs in [*sorted(by_exercise.items(), key=lambda kv: [int(p) for p in kv[0].split(".")]), ("all", rows)]:
        cell = {}
        for split in ("dev", "held-out"):
            bugs = [r for r in rs if r["split"] == split]
            cell[split] = dict(caught=sum(r["outcome"] in ("caught", "crash") for r in bugs), total=len(bugs))
        for batch in sorted({r.get("batch", 1) for r in rs if r["kind"] == "bug"}):  # held-out, batch by batch
            bugs = [r for r in rs if r["split"] == "held-out" and r.get("batch", 1) == batch]
            cell[f"held-out, batch {batch}"] = dict(caught=sum(r["outcome"] in ("caught", "crash") for r in bugs),
                                                    total=len(bugs))
        good = [r for r in rs if r["kind"] == "correct"]
        cell["false_alarms"] = dict(failed=sum(r["outcome"] != "passed" for r in good), total=len(good))
        out[ex] = cell
    return out


def report(rows: list[dict], summary: dict) -> None:
    print(f"{'exercise':<10}{'dev':>8}{'held-out':>10}{'false alarms':>14}")
    for ex, cell in summary.items():
        d, h, f = cell["dev"], cell["held-out"], cell["false_alarms"]
        print(f"{ex:<10}{d['caught']:>4}/{d['total']:<3}{h['caught']:>6}/{h['total']:<3}{f['failed']:>10}/{f['total']:<3}")
    for split in [k for k in summary["all"] if k.startswith(("dev", "held-out"))]:
        c = summary["all"][split]
        if c["total"]:
            print(f"{split}: {c['caught']}/{c['total']} = {c['caught'] / c['total']:.1%} caught")
    missed = [r for r in rows if r["kind"] == "bug" and r["outcome"] in ("passed", "timeout")]
    alarms = [r for r in rows if r["kind"] == "correct" and r["outcome"] != "passed"]
    crashes = [r for r in rows if r["outcome"] == "crash"]
    for title, rs in (("missed", missed), ("false alarms", alarms), ("caught by a crash", crashes)):
        if rs:
            print(f"\n{title}:")
            for r in rs:
                print(f"  {r['exercise']:<5} {r['split']:<9} {r.get('batch', 1)} {r['name']}: {r['mistake']}"
                      + (f"\n        -> {r['message'][:160]}" if r["outcome"] != "passed" else ""))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--split", choices=("dev", "held-out", "all"), default="all",
                   help="which bugs to run (the correct variants always run)")
    p.add_argument("--exercise", action="append", metavar="N.M", help="only these exercises (repeatable)")
    p.add_argument("--timeout", type=int, default=300, help="seconds per checker call before it counts as missed")
    p.add_argument("--json", default=str(RESULTS), metavar="PATH", help="where to write the outcomes ('' for nowhere)")
    p.add_argument("--before", metavar="PATH", help="an earlier run's JSON: its outcomes, re-read with today's "
                   "tags (a withdrawn bug counts as a correct variant), are stored beside this run's as 'before'")
    args = p.parse_args()

    chosen = [e for e in entries() if (args.split == "all" or e.split in (args.split, "correct"))
              and (not args.exercise or e.exercise in args.exercise)]
    rows = []
    for e in chosen:
        rows.append(run_one(e, args.timeout))
        print(f"{e.exercise:<5} {e.split:<9} {rows[-1]['outcome']:<8} {e.name}", file=sys.stderr)
    summary = summarise(rows)
    report(rows, summary)
    results = dict(command=" ".join(["python", *sys.argv]), **code_version(), torch=torch.__version__,
                   split=args.split, summary=summary, outcomes=rows)
    if args.before:
        results["before"] = before(args.before, chosen)
        print(f"\nbefore ({results['before']['commit']}):")
        for split in ("dev", "held-out"):
            c = results["before"]["summary"]["all"][split]
            print(f"  {split}: {c['caught']}/{c['total']}" + (f" = {c['caught'] / c['total']:.1%}" if c["total"] else ""))
    write_results(args.json, results)


def before(path: str, chosen) -> dict:
    """An earlier run's outcomes with today's kind and split of each entry, and their summary."""
    old = json.loads(Path(path).read_text(encoding="utf-8"))
    now = {(e.exercise, e.name): e for e in chosen}
    rows = [dict(r, kind=now[key].kind, split=now[key].split, batch=now[key].batch) for r in old["outcomes"]
            if (key := (r["exercise"], r["name"])) in now]
    return dict(command=old["command"], commit=old["commit"], clean=old["clean"], summary=summarise(rows),
                outcomes=[{k: r[k] for k in ("exercise", "name", "split", "outcome", "message")} for r in rows])


if __name__ == "__main__":
    main()
