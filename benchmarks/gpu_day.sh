#!/usr/bin/env bash
# The GPU day: what to run when the project is lent one CUDA GPU (written for an H100 80 GB) for
# about 8 minutes of wall time, all of it prepared here, nothing downloaded (the GPU machine has no
# network). From the repository root:
#
#     bash benchmarks/gpu_day.sh                 # everything under results/gpu/ (and runs/gpu/)
#     COPY_TO=/some/dir bash benchmarks/gpu_day.sh   # also copy results/gpu/ there at the end
#     DRY_RUN=1 bash benchmarks/gpu_day.sh       # on a CPU: every step at toy sizes, into /tmp
#
# Steps, each under `timeout`, each timed, inside a budget of BUDGET_S seconds (default 450, so
# that the whole script ends within 8 minutes):
#   1. preflight: the GPU, torch, the packages, the corpus (data/corpus/{train,valid}.txt).
#   2. data: the vocabulary and the shards the later steps read (data/cache/pretrain, built once).
#   3. benchmarks/pretrain_speed.py at BERT-BASE, 256 x 128, every row but the compiled ones.
#   4. the course recipe (`course`, then `course-128`) with the `mini` sizes (L4/H256), bf16:
#      a 60-step calibration run measures steps/s on this GPU, and the two phases get as many
#      steps as fit the time left (never more than the course recipe's 11,000 and 5,000).
#   5. results/gpu/course-mini/: phase 2's final folder (card, config, logs, tokenizer, weights).
#   6. only if time is left: pretrain_speed.py's compiled rows (torch.compile takes a while).
#   7. results/gpu/README.md: commit, GPU, torch, date, and every command with its time and status.
# Meanwhile, on the CPU: the count floors of the phase 2 evaluation (minibert.pretrain.baselines).
#
# Knobs (environment): BUDGET_S, PRETRAIN_S (calibration + both phases), SPEED_STEPS, PYTHON,
# NUM_WORKERS, P1_LR, P1_BATCH, P2_LR, P2_BATCH, P1_STEPS / P2_STEPS (fixed step counts: no
# calibration), FLOORS=0 (skip the floors), COPY_TO, SOURCE_COMMIT (the commit of a copy without .git).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # minibert importable by benchmarks/*.py too
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1

DRY_RUN=${DRY_RUN:-0}
BUDGET_S=${BUDGET_S:-450}      # the whole script; 8 minutes = 480
PRETRAIN_S=${PRETRAIN_S:-230}  # calibration + phase 1 + phase 2, wall time
SPEED_STEPS=${SPEED_STEPS:-30}
NUM_WORKERS=${NUM_WORKERS:-6}  # data-loader processes: collating 256 rows costs ~25-60 ms of CPU
P1_BATCH=${P1_BATCH:-256}      # the course recipe's phase 1 batch (256 x 32 tokens)
P1_LR=${P1_LR:-1e-3}           # the course's 3e-3 is the tiny model's; mini is measured only at 1e-3
P2_BATCH=${P2_BATCH:-128}      # the course's phase 2 uses 32 x 128 (a CPU's size); a GPU step costs the same at 128
P2_LR=${P2_LR:-1e-3}           # course-128's
P1_MAX=11000                   # the course recipe's step counts: never more
P2_MAX=5000
CALIB_STEPS=60
CALIB_LOG=10
LOG_EVERY=50
MP=bf16
SPEED=(--preset base --batch-size 256 --seq-len 128)
RESULTS=results/gpu
RUNS=runs/gpu
FLOORS=${FLOORS:-1}
EXTRA=()
if [[ $DRY_RUN == 1 ]]; then   # the same steps at toy sizes, on a CPU, out of the way
    BUDGET_S=${DRY_BUDGET_S:-400}; PRETRAIN_S=240; SPEED_STEPS=1; NUM_WORKERS=1
    P1_BATCH=8; P2_BATCH=4; P1_MAX=4; P2_MAX=4; CALIB_STEPS=4; CALIB_LOG=2; LOG_EVERY=2; MP=no
    EXTRA=(--eval-batches 1)
    SPEED=(--preset tiny --batch-size 2 --seq-len 128 --warmup 1 --batches 1)
    RESULTS=/tmp/gpu_day_dry/results; RUNS=/tmp/gpu_day_dry/runs; FLOORS=${FLOORS_DRY:-0}
    rm -rf /tmp/gpu_day_dry
fi

R1=25; O1=30  # steps/s and start-up seconds of phase 1 when nothing measured them (40 ms a step)
START=$SECONDS
DEADLINE=$((START + BUDGET_S))
left() { echo $((DEADLINE - SECONDS)); }
min() { local m=$1; shift; for x in "$@"; do ((x < m)) && m=$x; done; echo "$m"; }
say() { printf '\n[gpu_day %4ds] %s\n' "$((SECONDS - START))" "$*"; }

# Earlier results and runs are moved aside, never deleted (the runs refuse an out_dir that holds one).
STAMP=$(date -u +%Y%m%d-%H%M%S)
for d in "$RESULTS" "$RUNS"; do
    if [[ -e $d ]]; then mv "$d" "$d.old-$STAMP"; echo "moved the previous $d to $d.old-$STAMP"; fi
done
mkdir -p "$RESULTS/logs" "$RUNS"
STEPS_TSV=$RESULTS/logs/steps.tsv
printf 'step\texit\tseconds\tcommand\n' >"$STEPS_TSV"

# step NAME TIMEOUT LOGFILE CMD...: run CMD under timeout, its output on screen and in LOGFILE;
# record its exit status and seconds; never stops the script (the caller reads $RC).
RC=0
FAILED=()
step() {
    local name=$1 limit=$2 logfile=$3; shift 3
    local t0=$SECONDS cmd
    cmd=$(printf '%q ' "$@")
    if ((limit < 5)); then
        say "$name: skipped, no time left"
        printf '%s\t%s\t%s\t%s\n' "$name" "skipped" 0 "$cmd" >>"$STEPS_TSV"
        RC=124; FAILED+=("$name"); return 0
    fi
    say "$name (timeout ${limit}s): $cmd"
    RC=0
    timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$logfile" || RC=$?
    local took=$((SECONDS - t0))
    printf '%s\t%s\t%s\t%s\n' "$name" "$RC" "$took" "$cmd" >>"$STEPS_TSV"
    local verdict="ok"
    if ((RC == 124 || RC == 137)); then verdict="FAILED (exit $RC: timed out)"; elif ((RC != 0)); then verdict="FAILED (exit $RC)"; fi
    ((RC == 0)) || FAILED+=("$name")
    say "$name: $verdict after ${took}s; $(left)s of the budget left"
}

# The provenance, written whatever happens (also after a failure or a timeout).
FLOORS_PID=
provenance() {
    local rc=$?
    set +e
    if [[ -n $FLOORS_PID ]] && kill -0 "$FLOORS_PID" 2>/dev/null; then kill "$FLOORS_PID"; fi
    {
        echo "# The GPU day: results"
        echo
        echo "Made by \`bash benchmarks/gpu_day.sh\`$([[ $DRY_RUN == 1 ]] && echo ' (DRY_RUN=1: toy sizes on a CPU, not results)')."
        echo "The script exited with status $rc after $((SECONDS - START)) s (budget ${BUDGET_S} s)."
        echo
        echo "| | |"
        echo "|---|---|"
        echo "| date (UTC) | $(date -u '+%Y-%m-%d %H:%M') |"
        if git rev-parse HEAD >/dev/null 2>&1; then
            echo "| commit | $(git rev-parse HEAD) |"
            echo "| uncommitted changes | $(git status --porcelain | wc -l | tr -d ' ') paths (\`git status --porcelain\`) |"
        elif [[ -n ${SOURCE_COMMIT:-} ]]; then  # a copy of the tree without .git: the caller names its commit
            echo "| commit | $SOURCE_COMMIT (named by SOURCE_COMMIT: this copy has no .git; the source digest below checks it) |"
        else
            echo "| commit | unknown: no git repository here (see the source digest) |"
        fi
        echo "| source digest | $(find minibert benchmarks -name '*.py' 2>/dev/null | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16) (sha256 of the sha256s of minibert/ and benchmarks/ *.py) |"
        local gpu driver
        gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | paste -sd ';' -) || gpu=none
        driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1) || driver=none
        echo "| GPU | $gpu |"
        echo "| driver | $driver |"
        echo "| python, torch | $("$PY" -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, "CUDA", torch.version.cuda)' 2>/dev/null) |"
        echo "| CPU | $(nproc 2>/dev/null) cores |"
        echo
        echo "\`nvidia-smi --query-gpu=name,memory.total --format=csv\`:"
        echo
        nvidia-smi --query-gpu=name,memory.total --format=csv 2>&1 | sed 's/^/    /'
        echo
        echo "## Steps (exit status, wall seconds, the exact command)"
        echo
        echo "| step | exit | seconds | command |"
        echo "|---|---|---:|---|"
        tail -n +2 "$STEPS_TSV" | while IFS=$'\t' read -r n e s c; do echo "| $n | $e | $s | \`${c% }\` |"; done
        if [[ -f $RESULTS/plan.txt ]]; then
            echo
            echo "## How the pre-training steps were chosen"
            echo
            sed 's/^/    /' "$RESULTS/plan.txt"
        fi
        echo
        echo "## Files"
        echo
        echo "- \`pretrain_speed_base.txt\` / \`.json\`: benchmarks/pretrain_speed.py at BERT-BASE (rows without compile)"
        echo "- \`pretrain_speed_base_compile.txt\` / \`.json\`: its compiled rows, if time was left"
        echo "- \`course-mini/\`: phase 2's final folder (card README.md, config, log.jsonl, log-phase1.jsonl, tokenizer, weights); README-phase1.md: phase 1's card; floors-128.txt: the count floors of phase 2's evaluation"
        echo "- \`logs/\`: every step's output; steps.tsv; calib-log.jsonl (the calibration run)"
    } >"$RESULTS/README.md" 2>/dev/null
    if [[ -n ${COPY_TO:-} ]]; then mkdir -p "$COPY_TO" && cp -r "$RESULTS" "$COPY_TO/" && echo "copied $RESULTS to $COPY_TO/"; fi
    echo "provenance: $RESULTS/README.md"
}
PY=${PYTHON:-}
trap provenance EXIT

# ---------------------------------------------------------------------------------------------- 1
say "preflight"
if [[ -z $PY ]]; then
    PY=python3
    if [[ -x .venv/bin/python ]] && { [[ $DRY_RUN == 1 ]] || .venv/bin/python -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2>/dev/null; }; then
        PY=.venv/bin/python
    fi
fi
for f in data/corpus/train.txt data/corpus/valid.txt; do
    [[ -s $f ]] || { echo "error: $f is missing: the course corpus (made by \`make setup\`) must come with the repository (data/corpus/ is git-ignored: carry it)"; exit 1; }
done
nvidia-smi >"$RESULTS/logs/nvidia-smi.txt" 2>&1 || [[ $DRY_RUN == 1 ]] || { echo "error: nvidia-smi failed"; exit 1; }
nvidia-smi --query-gpu=name,memory.total --format=csv >"$RESULTS/nvidia-smi.csv" 2>&1 || true
step preflight 60 "$RESULTS/logs/preflight.txt" "$PY" - "$DRY_RUN" <<'EOF'
import importlib, sys
import torch
print("python", sys.version.split()[0], "| torch", torch.__version__, "| CUDA", torch.version.cuda)
if sys.argv[1] != "1":
    assert torch.cuda.is_available(), "no CUDA GPU visible to torch"
    print("GPU:", torch.cuda.get_device_name(), f"{torch.cuda.get_device_properties(0).total_memory / 2**30:.0f} GiB",
          "| bf16:", torch.cuda.is_bf16_supported())
for m in ("accelerate", "tokenizers", "safetensors", "numpy", "tqdm", "minibert", "minibert.pretrain"):
    importlib.import_module(m)
try:
    import transformers
    print("transformers", transformers.__version__)
except ImportError:
    print("NO-TRANSFORMERS")
try:
    from minibert.hub import minilm_path
    print("bert-uncased vocab:", minilm_path() / "vocab.txt")
except Exception as e:
    print("NO-BERT-VOCAB", e)
EOF
((RC == 0)) || { echo "error: preflight failed (see $RESULTS/logs/preflight.txt)"; exit 1; }
HAVE_TRANSFORMERS=1; grep -q NO-TRANSFORMERS "$RESULTS/logs/preflight.txt" && HAVE_TRANSFORMERS=0
HAVE_BERT_VOCAB=1; grep -q NO-BERT-VOCAB "$RESULTS/logs/preflight.txt" && HAVE_BERT_VOCAB=0

# ---------------------------------------------------------------------------------------------- 2
# The shards are keyed by their settings (not the model), so these are exactly the folders the
# later steps look up: pretrain_speed.py's (BERT's vocab, 128 tokens, NSP), course's and course-128's.
step data "$(min 150 $(($(left) - 240)))" "$RESULTS/logs/data.txt" "$PY" - "$HAVE_BERT_VOCAB" <<'EOF'
import sys, time
from minibert.pretrain import recipe
from minibert.pretrain.data import prepare_shards, prepare_vocab
todo = [("course", ("train", "valid")), ("course-128", ("train", "valid"))]
if sys.argv[1] == "1":
    todo.insert(0, (dict(name="tiny", vocab="bert-uncased", max_seq_length=128), ("train",)))
for spec, splits in todo:
    cfg = recipe(**spec) if isinstance(spec, dict) else recipe(spec)
    t = time.perf_counter()
    vocab = prepare_vocab(cfg)
    for split in splits:
        folder = prepare_shards(cfg, vocab, split)
        print(f"{spec}: {split} shards {folder} ({time.perf_counter() - t:.1f} s so far)", flush=True)
EOF
((RC == 0)) || { echo "error: the data could not be prepared (see $RESULTS/logs/data.txt)"; exit 1; }

# Phase 2's flags, shared by the count floors (the same held-out positions, masked the same way).
P2_DATA=(--config course-128 --model mini --batch-size "$P2_BATCH")
FLOORS_CMD=("$PY" -m minibert.pretrain.baselines "${P2_DATA[@]}")
if [[ $FLOORS == 1 ]]; then  # CPU only, in the background: costs the GPU nothing
    mkdir -p "$RESULTS/course-mini"
    FLOORS_LIMIT=$(min 240 $(($(left) - 40)))
    say "floors, in the background (timeout ${FLOORS_LIMIT}s): $(printf '%q ' "${FLOORS_CMD[@]}")"
    timeout "$FLOORS_LIMIT" nice -n 10 "${FLOORS_CMD[@]}" >"$RESULTS/course-mini/floors-128.txt" 2>&1 &
    FLOORS_PID=$! FLOORS_T0=$SECONDS
fi

# ---------------------------------------------------------------------------------------------- 3
if [[ $HAVE_BERT_VOCAB == 1 ]]; then
    ROWS=(plain bf16 "fused AdamW" unpad "all, unpadded")
    ((HAVE_TRANSFORMERS)) && ROWS+=(transformers)
    step pretrain_speed "$(min 170 $(($(left) - PRETRAIN_S - 20)))" "$RESULTS/pretrain_speed_base.txt" \
        "$PY" benchmarks/pretrain_speed.py "${SPEED[@]}" --steps "$SPEED_STEPS" --rows "${ROWS[@]}" \
        --json "$RESULTS/pretrain_speed_base.json"
else
    say "pretrain_speed: skipped: BERT's uncased vocabulary (the MiniLM package) is not installed"
fi

# ---------------------------------------------------------------------------------------------- 4
PRETRAIN_END=$(min $((SECONDS + PRETRAIN_S)) $((DEADLINE - 20)))
COMMON=(--mixed-precision "$MP" --num-workers "$NUM_WORKERS" --no-progress --no-tensorboard --keep-last 1 ${EXTRA[@]+"${EXTRA[@]}"})
P1=(--config course --model mini --batch-size "$P1_BATCH" --lr "$P1_LR" "${COMMON[@]}")
P2=("${P2_DATA[@]}" --lr "$P2_LR" --init-from "$RUNS/course-mini/final" "${COMMON[@]}")

# steps_for SECONDS RATE OVERHEAD MAX: the steps that fill 75% of the time left after the overhead,
# a multiple of LOG_EVERY, at least 2 x LOG_EVERY, at most MAX.
steps_for() {
    "$PY" -c 'import sys; t, r, o, cap, k = map(float, sys.argv[1:]); n = int(0.75 * max(0.0, t - o) * r) // int(k) * int(k); print(int(min(cap, max(2 * k, n))))' "$@" "$LOG_EVERY"
}
# rate LOG.JSONL WALL: "steps/s overhead_s" of a finished run: the rate between its train records
# after the first (the first window holds the warm-up), the overhead = wall - training seconds.
rate() {
    "$PY" - "$@" <<'EOF'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
train = [r for r in records if r["kind"] == "train"]
a, b = (train[1], train[-1]) if len(train) > 2 else (dict(step=0, seconds=0.0), train[-1])
print(f"{(b['step'] - a['step']) / (b['seconds'] - a['seconds']):.3f} {max(0.0, float(sys.argv[2]) - train[-1]['seconds']):.1f}")
EOF
}

if [[ -z ${P1_STEPS:-} ]]; then
    t0=$SECONDS
    step calibration "$(min 90 $((PRETRAIN_END - SECONDS - 60)))" "$RESULTS/logs/calibration.txt" \
        "$PY" -m minibert.pretrain "${P1[@]}" --out-dir "$RUNS/calib" --max-steps "$CALIB_STEPS" \
        --warmup-steps "$CALIB_STEPS" --log-every "$CALIB_LOG" --eval-every "$CALIB_STEPS" --save-every "$CALIB_STEPS"
    CAL_WALL=$((SECONDS - t0))
    if ((RC == 0)) && read -r R1 O1 < <(rate "$RUNS/calib/log.jsonl" "$CAL_WALL" 2>/dev/null); then
        cp "$RUNS/calib/log.jsonl" "$RESULTS/logs/calib-log.jsonl"
        HOW="measured by a ${CALIB_STEPS}-step calibration run (${CAL_WALL} s wall)"
    else
        HOW="ASSUMED (the calibration run failed): 40 ms a step, 30 s of start-up"
    fi
    T1=$(( (PRETRAIN_END - SECONDS) * 7 / 10 ))  # phase 1 gets 70% of what is left, phase 2 the rest
    P1_STEPS=$(steps_for "$T1" "$R1" "$O1" "$P1_MAX")
    echo "phase 1: ${R1} steps/s and ${O1} s of start-up/eval/save, $HOW; ${T1} s allotted -> ${P1_STEPS} steps" \
        | tee "$RESULTS/plan.txt"
else
    T1=$((PRETRAIN_END - SECONDS - 60))
    echo "phase 1: ${P1_STEPS} steps (fixed by P1_STEPS)" | tee "$RESULTS/plan.txt"
fi
P1_FLAGS=(--max-steps "$P1_STEPS" --warmup-steps $((P1_STEPS / 20)) --log-every "$LOG_EVERY"
          --eval-every $((P1_STEPS >= 5 ? P1_STEPS / 5 : 1)) --save-every "$P1_STEPS" --out-dir "$RUNS/course-mini")
t0=$SECONDS
step phase1 "$(min $((T1 + 30)) $((PRETRAIN_END - SECONDS - 45)))" "$RESULTS/logs/phase1.txt" \
    "$PY" -m minibert.pretrain "${P1[@]}" "${P1_FLAGS[@]}"
P1_WALL=$((SECONDS - t0))
[[ -f $RUNS/course-mini/final/model.safetensors ]] || { echo "error: phase 1 left no final model; phase 2 cannot run"; exit 1; }

if [[ -z ${P2_STEPS:-} ]]; then
    # Phase 2's steps: phase 1's own rate, 1.5 times slower (128-token rows; a guess, on the safe side).
    if ! read -r R1B O1B < <(rate "$RUNS/course-mini/log.jsonl" "$P1_WALL" 2>/dev/null); then
        R1B=$R1; O1B=$O1  # phase 1's log unreadable: the calibration's numbers
    fi
    R2=$("$PY" -c "print(round($R1B / 1.5, 3))")
    T2=$((PRETRAIN_END - SECONDS))
    P2_STEPS=$(steps_for "$T2" "$R2" "$O1B" "$P2_MAX")
    echo "phase 2: phase 1 ran ${R1B} steps/s with ${O1B} s of overhead; assumed ${R2} steps/s; ${T2} s left -> ${P2_STEPS} steps" \
        | tee -a "$RESULTS/plan.txt"
else
    echo "phase 2: ${P2_STEPS} steps (fixed by P2_STEPS)" | tee -a "$RESULTS/plan.txt"
fi
P2_FLAGS=(--max-steps "$P2_STEPS" --warmup-steps $((P2_STEPS / 20)) --log-every "$LOG_EVERY"
          --eval-every $((P2_STEPS >= 4 ? P2_STEPS / 4 : 1)) --save-every "$P2_STEPS" --out-dir "$RUNS/course-mini-128")
step phase2 "$(min $((PRETRAIN_END - SECONDS + 20)) $(($(left) - 10)))" "$RESULTS/logs/phase2.txt" \
    "$PY" -m minibert.pretrain "${P2[@]}" "${P2_FLAGS[@]}"

# ---------------------------------------------------------------------------------------------- 5
FINAL=$RUNS/course-mini-128/final
if [[ -d $FINAL ]]; then
    mkdir -p "$RESULTS/course-mini"
    for f in README.md config.json log.jsonl log-phase1.jsonl tokenizer.json tokenizer_config.json vocab.txt \
             special_tokens_map.json; do
        if [[ -f $FINAL/$f ]]; then cp "$FINAL/$f" "$RESULTS/course-mini/"; fi
    done
    if [[ -f $FINAL/model.safetensors ]] && (($(stat -c %s "$FINAL/model.safetensors") < 30 * 1024 * 1024)); then
        cp "$FINAL/model.safetensors" "$RESULTS/course-mini/"
    fi
    cp "$RUNS/course-mini/final/README.md" "$RESULTS/course-mini/README-phase1.md"
    say "copied $FINAL to $RESULTS/course-mini/: $(ls "$RESULTS/course-mini" | paste -sd ' ' -)"
else
    say "phase 2 left no final folder: nothing copied (phase 1's is in $RUNS/course-mini/final)"
    mkdir -p "$RESULTS/course-mini-phase1"
    cp "$RUNS/course-mini/final/"{README.md,config.json,log.jsonl} "$RESULTS/course-mini-phase1/" || true
fi

# ---------------------------------------------------------------------------------------------- 6
# torch.compile of BERT-BASE's encoder, twice (float32, bf16): a cold cache may take minutes, so
# it runs last, in what is left; `plain` runs again, as the ratios' baseline.
if [[ $HAVE_BERT_VOCAB == 1 && $DRY_RUN != 1 ]] && (($(left) >= 100)); then
    step pretrain_speed_compile "$(($(left) - 15))" "$RESULTS/pretrain_speed_base_compile.txt" \
        "$PY" benchmarks/pretrain_speed.py "${SPEED[@]}" --steps 10 --warmup 2 --rows plain compile "all, compiled" \
        --json "$RESULTS/pretrain_speed_base_compile.json"
else
    say "pretrain_speed_compile: skipped ($(left) s left, 100 needed; never in a DRY_RUN)"
fi

if [[ -n $FLOORS_PID ]]; then  # its timeout ends it before the budget does
    rc=0; wait "$FLOORS_PID" || rc=$?
    FLOORS_PID=
    printf '%s\t%s\t%s\t%s\n' "floors (background, CPU)" "$rc" "$((SECONDS - FLOORS_T0))" \
        "$(printf '%q ' "${FLOORS_CMD[@]}")" >>"$STEPS_TSV"
    say "floors: exit $rc; $RESULTS/course-mini/floors-128.txt:"; cat "$RESULTS/course-mini/floors-128.txt"
fi
say "done in $((SECONDS - START)) s"
if ((${#FAILED[@]})); then echo "failed or timed out: ${FAILED[*]}"; exit 1; fi
