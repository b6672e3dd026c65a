"""The checker of exercise 10.3: the sequence-length-aware micro-batch. Given the sequences per
optimizer step, their length, the processes and the tokens one forward pass may hold, the fewest
accumulation steps that keep every micro-batch within the budget and split each process's share
evenly, as `minibert.training.accelerator.accumulation_steps` derives them."""

from __future__ import annotations

import math
import numbers
import random

from ...training.accelerator import accumulation_steps as reference
from ..common import ExerciseError, call, passed

# (batch_size, seq_len, processes, micro_batch_tokens, steps, lesson), worked by hand
HAND = [
    (256, 128, 1, 32_768, 1, "BERT's phase 1 on one GPU: 256 × 128 = 32,768 tokens fit in one pass"),
    (256, 512, 1, 32_768, 4, "phase 2: 4× the tokens per sequence, so 64 sequences per pass and 4 passes"),
    (256, 512, 8, 32_768, 1, "8 GPUs: each holds 32 of the 256 sequences, and 32 × 512 fit at once"),
    (256, 512, 8, 8_192, 2, "8 GPUs with room for 16 sequences of 512 each: 2 passes of 16"),
    (256, 128, 1, 12_800, 4, "room for 100 sequences: 3 passes would need 85⅓ sequences each; 4 passes of 64 "
                             "is the fewest that divides 256 evenly"),
    (96, 128, 2, 1_024, 6, "2 processes × 48 sequences, 8 fit per pass: 6 passes of 8"),
    (12, 512, 1, 2_000, 4, "2,000 tokens hold 3 sequences of 512, not 3.9: a pass holds whole sequences, "
                           "micro_batch_tokens // seq_len; 4 passes of 3"),
    (96, 128, 3, 1_408, 4, "3 processes × 32 sequences, 11 fit per pass: 3 passes would split the batch of 96 "
                           "evenly but not a process's 32; 4 passes of 8"),
    (192, 512, 3, 12_800, 4, "3 processes × 64 sequences, 25 fit per pass: 4 passes of 16 each; the whole batch "
                             "would take 8 passes of 24, but 8 passes do not share out evenly among 3 processes"),
    (8, 512, 1, 1_000, 8, "8 sequences, room for one of 512: 8 passes of 1 (the whole share is a divisor too)"),
    (256, 512, 1, 512, 256, "256 sequences, room for one of 512: 256 passes of 1, however many that is"),
    (48, 384, 1, 12_288, 2, "SQuAD's length, 384, is no power of two: 12,288 tokens hold 32 sequences of it, so 2 "
                            "passes of 24"),
]

# One more, checked after HAND and kept out of it: `_hint` runs a failing function on every HAND case, and a search
# over powers of two (a mistake it names) never ends on a share of 10 with 4 fitting (no power of two divides 10
# into passes of at most 4).
WHOLE_SEQUENCES = (10, 128, 1, 512, 5, "room for 4 sequences of the 10: 4 passes of 320 tokens would split the "
                                      "1,280 tokens evenly, but 2½ sequences a pass; a pass holds whole sequences: "
                                      "5 passes of 2")


def _fewest(share: int, fits: float) -> int:
    """The fewest passes that divide `share` sequences with at most `fits` in each."""
    return next(g for g in range(1, share + 1) if share % g == 0 and share // g <= fits)


def _guesses(batch_size, seq_len, processes, micro_batch_tokens) -> list[tuple[float, str]]:
    """(a value, the mistake that gives it)."""
    per_process, fits = batch_size // processes, micro_batch_tokens // seq_len
    return [
        (_fewest(per_process, max(round(micro_batch_tokens / seq_len), 1)),
         "round(micro_batch_tokens / seq_len) rounds a fraction of a sequence up: a pass holds "
         "micro_batch_tokens // seq_len whole sequences (round down), or it is over the budget"),
        (next(g for g in range(1, per_process + 1) if batch_size % g == 0 and per_process / g <= fits),
         "these passes divide the whole batch evenly, but not each process's share of batch_size / processes "
         "sequences: g must divide the share"),
        (math.ceil(per_process / max(fits, 1)),
         "ceil(sequences / fitting) passes need not divide the process's sequences evenly: every micro-batch must "
         "hold the same number of sequences, so take the fewest passes g that divide them with at most `fitting` in each"),
        (next(g for g in range(1, batch_size + 1) if batch_size % g == 0 and batch_size // g <= fits),
         "the processes are forgotten: each of them runs batch_size / processes sequences per step"),
        (math.ceil(batch_size / max(fits, 1)),
         "the processes are forgotten, and the passes must split each process's sequences evenly"),
        (batch_size * seq_len // micro_batch_tokens,
         "batch_size × seq_len // micro_batch_tokens rounds down (a micro-batch then holds more than the budget) "
         "and forgets the processes"),
        (per_process * seq_len // micro_batch_tokens,
         "sequences × seq_len // micro_batch_tokens rounds down: a micro-batch then holds more tokens than the "
         "budget (or there are 0 passes). Count the sequences that fit in a pass first"),
        (per_process * seq_len / micro_batch_tokens,
         "a fraction of a pass: the count of passes is a whole number, each holding whole sequences"),
        (next((g for g in range(1, per_process * seq_len + 1) if per_process * seq_len % g == 0
               and per_process * seq_len // g <= micro_batch_tokens), None),
         "these passes split the share's tokens evenly, but not its sequences: a pass holds whole sequences, so g "
         "must divide the share, batch_size / processes, and the sequences of a pass must fit"),
        (fits, "this is how many sequences fit in one pass (micro_batch_tokens // seq_len), not how many passes "
               "a step needs"),
        (next(g for g in (2 ** e for e in range(per_process.bit_length() + 1))
              if g >= per_process or (per_process % g == 0 and per_process // g <= fits)),
         "only powers of two were tried: the fewest passes may be 3, 5, 6, ...; try every g that divides the share"),
        (math.ceil(_fewest(batch_size, max(fits, 1)) / processes),
         "these are the whole batch's fewest passes, shared out among the processes: each process splits its own "
         "share, batch_size / processes sequences, so take the fewest passes g that divide the share"),
        (_fewest(batch_size * processes, max(fits, 1)),
         "batch_size × processes sequences: batch_size is the whole step's, shared by the processes, so each runs "
         "batch_size / processes"),
    ]


def _hint(fn, args, got) -> str:
    """The mistake that gives `got` here and your function's result on every hand case; when one number
    fits several mistakes and the hand cases do not tell them apart, all of them."""
    here = [k for k, (value, _) in enumerate(_guesses(*args)) if value == got]
    if len(here) > 1:
        try:
            results = [(h[:4], fn(*h[:4])) for h in HAND]
        except Exception:  # noqa: BLE001  (the hand cases only narrow the hint down)
            results = []
        here = [k for k in here if all(_guesses(*a)[k][0] == r for a, r in results)] or here
    hints = [_guesses(*args)[k][1] for k in here]
    return hints[0] if len(hints) == 1 else ("this is what each of these mistakes gives here: " + "; or ".join(hints)
                                             if hints else "")


def _case(fn, name, args, expected):
    got = call(fn, name, *args)
    if isinstance(got, bool) or not isinstance(got, numbers.Real) or got != int(got):
        raise ExerciseError(f"{name}: expected a whole number of accumulation steps ({expected}), received {got!r}")
    if int(got) == expected:
        return
    batch_size, seq_len, processes, tokens = args
    hint = _hint(fn, args, got)
    if not hint and 0 < got and (batch_size // processes) % got == 0:
        micro = batch_size // processes // int(got)
        hint = (f"{int(got)} passes of {micro} sequences = {micro * seq_len:,} tokens each, over the budget of "
                f"{tokens:,}" if micro * seq_len > tokens else
                f"{int(got)} passes fit, but fewer do too: the fewest passes is the fastest step")
    raise ExerciseError(f"{name}:\n  batch_size={batch_size}, seq_len={seq_len}, processes={processes}, "
                        f"micro_batch_tokens={tokens:,}\n  expected {expected} accumulation steps "
                        f"({batch_size // processes // expected} sequences per pass)\n  received {got!r}"
                        + (f"\n  hint: {hint}" if hint else ""))


def accumulation_steps(fn) -> None:
    """fn(batch_size, seq_len, processes, micro_batch_tokens) -> accumulation steps per optimizer step."""
    for batch_size, seq_len, processes, tokens, steps, lesson in [*HAND, WHOLE_SEQUENCES]:
        args = (batch_size, seq_len, processes, tokens)
        assert reference(*args) == steps  # the hand answer is minibert's
        _case(fn, f"hand case ({lesson})", args, steps)
    rng = random.Random(103)
    n = 40
    for _ in range(n):
        processes = rng.choice([1, 2, 4, 8, 16])
        batch_size = processes * rng.choice([1, 3, 8, 12, 32, 48, 64, 100, 256])
        seq_len = rng.choice([64, 128, 256, 384, 512])
        tokens = seq_len * rng.randint(1, 300) + rng.choice([0, seq_len // 2])
        args = (batch_size, seq_len, processes, tokens)
        _case(fn, f"random case batch_size={batch_size}, seq_len={seq_len}, processes={processes}, "
                  f"micro_batch_tokens={tokens:,}", args, reference(*args))
    passed("accumulation_steps", f"{len(HAND) + 1} hand-computed cases and {n} random ones equal "
                                 "minibert.training.accelerator.accumulation_steps")
