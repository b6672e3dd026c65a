#!/usr/bin/env bash
# Makes every stored fine-tuning result the chapters read (07 and 08), one file per command, in
# results/finetune/<name>.json. A result already stored is kept, and within a command every seed
# that finished is kept (--resume), so a killed run continues where it stopped: delete a file to
# make it again. Each line also runs alone.
#
#   bash results/finetune/make.sh            # everything missing
#   bash results/finetune/make.sh sentiment  # only the names that start with "sentiment"
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-.venv/bin/python}
ONLY=${1:-}

lacks() {  # lacks RUN NAME...: whether runs/RUN/final is missing while a NAME asked for is not stored
  local folder=$1; shift
  [[ -d runs/$folder/final ]] && return 1
  for name; do [[ $name == ${ONLY}* && ! -f results/finetune/$name.json ]] && return 0; done
  return 1
}

run() {  # run NAME FLAGS...: fine-tune, and store the runs with their provenance as NAME
  local name=$1; shift
  [[ $name == ${ONLY}* ]] || return 0
  if [[ -f results/finetune/$name.json ]]; then echo "kept    $name"; return 0; fi
  echo "making  $name"
  "$PY" -m minibert.finetune "$@" --out-dir "runs/results/$name" --resume --no-progress --record "$name"
}

# Chapter 07. What pre-training buys, on real text: the same classifier from pre-trained weights
# and from random ones; 2,000 training snippets, scored on all 1,293 dev snippets.
claim="--task sentiment --max-train-examples 2000 --epochs 3 --batch-size 32 --max-seq-length 64"
# What pre-training buys, measured fairly: each arm (pre-trained weights, the same architecture
# freshly initialised) at its own learning rate, chosen on a held-out fifth of its training sample
# (--select-lr: dev is never looked at), on two samples of 2,000 snippets, 5 seeds each.
fair="$claim --samples 2 --select-seeds 2 --seeds 5 --select-lr 1e-4,3e-4,1e-3,3e-3"
run sentiment/course-pretrained $fair --model course
run sentiment/course-random     $fair --model course --init random
# The dose: the same after 5 and 37 minutes of pre-training (the search's short-32-lr3e-3 and
# long-32 runs: `python results/pretrain/search.py` makes them in runs/search/) and after the
# course model's 46 (both phases).
run sentiment/course-5min  $fair --model runs/search/short-32-lr3e-3/final
run sentiment/course-37min $fair --model runs/search/long-32/final
# Fewer labels: the same fair comparison on samples of 1,000 and 500 snippets (3 epochs each, so
# 94 and 47 steps), the label-efficiency curve chapter 07 draws with the 2,000 above.
run sentiment/course-pretrained-1000 ${fair/--max-train-examples 2000/--max-train-examples 1000} --model course
run sentiment/course-random-1000     ${fair/--max-train-examples 2000/--max-train-examples 1000} --model course --init random
run sentiment/course-pretrained-500  ${fair/--max-train-examples 2000/--max-train-examples 500} --model course
run sentiment/course-random-500      ${fair/--max-train-examples 2000/--max-train-examples 500} --model course --init random
# In-domain text: the course model's masked LM continued over the sentiment task's 10,000 training
# snippets, labels left out (task-adaptive pre-training, Gururangan et al. 2020),
# then the same fair comparison at 2,000 and 1,000 labels, against the same random twins. (Its
# masked LM, 2.7 minutes, is run first when a result needs it and runs/ lacks it.)
if lacks course-sentiment sentiment/course-sentiment sentiment/course-sentiment-1000 \
    sentiment/course-sentiment-1000-passes; then
  "$PY" -m minibert.tasks text sentiment
  "$PY" -m minibert.pretrain --config course-sentiment --no-progress
  cp runs/course-sentiment/log.jsonl results/pretrain/course-sentiment-log.jsonl  # its curve, kept
fi
run sentiment/course-sentiment      $fair --model runs/course-sentiment/final
run sentiment/course-sentiment-1000 ${fair/--max-train-examples 2000/--max-train-examples 1000} --model runs/course-sentiment/final
# More passes over few labels: 3 passes of 1,000 snippets are 94 steps, and neither arm may have
# finished learning what those labels teach. Each arm chooses its passes (3 or 10) with its rate on
# its own train slice, as above (dev is never read).
passes="${fair/--max-train-examples 2000/--max-train-examples 1000} --select-epochs 3,10"
run sentiment/course-random-1000-passes     $passes --model course --init random
run sentiment/course-pretrained-1000-passes $passes --model course
# ... the in-domain model the same way, against the same random twin; and at 500 labels (3 or 10
# passes are 47 or 157 steps).
run sentiment/course-sentiment-1000-passes  $passes --model runs/course-sentiment/final
run sentiment/course-random-500-passes      ${passes/--max-train-examples 1000/--max-train-examples 500} --model course --init random
run sentiment/course-pretrained-500-passes  ${passes/--max-train-examples 1000/--max-train-examples 500} --model course
# A [CLS] vector that an objective trained: the course model pre-trained without next sentence
# prediction, so its pooler learnt nothing; 1,500 more steps of phase 2 with NSP on (the paper's
# objective, MLM + NSP) give the classifier a trained [CLS] and pooler, then the same comparisons.
if lacks course-nsp sentiment/course-nsp sentiment/course-nsp-1000; then
  "$PY" -m minibert.pretrain --config course-128 --init-from models/course --nsp --max-steps 1500 \
    --warmup-steps 100 --out-dir runs/course-nsp --no-progress
  cp runs/course-nsp/log.jsonl results/pretrain/course-nsp-log.jsonl  # its curve, kept
fi
run sentiment/course-nsp      $fair --model runs/course-nsp/final
run sentiment/course-nsp-1000 ${fair/--max-train-examples 2000/--max-train-examples 1000} --model runs/course-nsp/final
# And further: the course recipe at the mini sizes (L4/H256), 3.5 minutes on a GPU (results/gpu/),
# against its own random twin: the same candidate rates, on sample 0 alone, one train-slice run per
# rate, 8 seeds (about 12 CPU minutes an arm).
mini="$claim --samples 1 --select-seeds 1 --seeds 8 --select-lr 1e-4,3e-4,1e-3,3e-3"
run sentiment/gpu-mini-pretrained $mini --model results/gpu/course-mini
run sentiment/gpu-mini-random     $mini --model results/gpu/course-mini --init random
# The same at 1,000 labels, where the course model's gain showed at 3 passes: two samples, one train-slice run
# per candidate rate, 5 seeds (about 17 CPU minutes an arm).
mini1000="$claim --samples 2 --select-seeds 1 --seeds 5 --select-lr 1e-4,3e-4,1e-3,3e-3"
mini1000="${mini1000/--max-train-examples 2000/--max-train-examples 1000}"
run sentiment/gpu-mini-pretrained-1000 $mini1000 --model results/gpu/course-mini
run sentiment/gpu-mini-random-1000     $mini1000 --model results/gpu/course-mini --init random
# ... and with each arm choosing its passes (3 or 10) with its rate, as the course model's above: 94 steps were
# too few for the random twin here too (about an hour of 2 cores an arm).
run sentiment/gpu-mini-random-1000-passes     $mini1000 --select-epochs 3,10 --model results/gpu/course-mini --init random
run sentiment/gpu-mini-pretrained-1000-passes $mini1000 --select-epochs 3,10 --model results/gpu/course-mini
# The feature-based way on the course model: the encoder frozen (its pooler too, which no NSP
# trained), only a new classifier learns, each arm at its own rate chosen as above from larger
# candidates (one linear layer needs larger steps than the whole network).
frozen="$claim --samples 2 --select-seeds 2 --seeds 5 --freeze-encoder --select-lr 3e-3,1e-2,3e-2,1e-1"
run sentiment/course-frozen-pretrained $frozen --model course
run sentiment/course-frozen-random     $frozen --model course --init random
# MiniLM (22M parameters, 6 times slower a run): one sample, one run per candidate rate.
run sentiment/minilm-pretrained $claim --model minilm --select-lr 2e-5,5e-5,1e-4 --select-seeds 1 --seeds 3
run sentiment/minilm-random     $claim --model minilm --init random --select-lr 5e-5,2e-4,1e-3 --select-seeds 1 --seeds 4
# Fine-tuning against a frozen encoder (§5.3's feature-based way): only the classifier learns, at
# two larger steps than the whole network's (a single linear layer needs them).
run sentiment/minilm-frozen     $claim --model minilm --lr 1e-3 --freeze-encoder --seeds 2
run sentiment/minilm-frozen-lr1e-2 $claim --model minilm --lr 1e-2 --freeze-encoder --seeds 2
# A pair task (Figure 4a): does B follow A?
pair="--task next-sentence --max-train-examples 1000 --epochs 3 --batch-size 32 --max-seq-length 128"
run next-sentence/minilm-pretrained $pair --model minilm --lr 5e-5 --seeds 2
run next-sentence/minilm-random     $pair --model minilm --lr 5e-5 --init random --seeds 1

# Chapter 08. Tokens, spans and choices, each from pre-trained and from random weights.
tags="--max-train-examples 1000 --epochs 3 --batch-size 32 --max-seq-length 128 --model minilm --lr 5e-5"
run pos/minilm-pretrained   --task pos   $tags --seeds 2
run pos/minilm-random       --task pos   $tags --init random --seeds 1
run names/minilm-pretrained --task names $tags --seeds 2
run names/minilm-random     --task names $tags --init random --seeds 1
span="--task cloze-qa --max-train-examples 600 --max-eval-examples 400 --epochs 2 --batch-size 16 --max-seq-length 192 --doc-stride 64 --model minilm --lr 5e-5"
run cloze-qa/minilm-pretrained $span --seeds 2
run cloze-qa/minilm-random     $span --init random --seeds 1
# 98 steps teach MiniLM little about where an answer is (F1 about 4 when it always answers): the
# same with more questions and a larger step, one seed (about 12 minutes).
run cloze-qa/minilm-pretrained-2000 --task cloze-qa --max-train-examples 2000 --max-eval-examples 400 --epochs 2 \
    --batch-size 32 --max-seq-length 192 --doc-stride 64 --model minilm --lr 1e-4 --seeds 1
# A span task at SQuAD's difficulty (reading-qa: the question rewords a sentence of its passage),
# with cloze-qa's larger run's settings: MiniLM at that run's rate, 2 seeds; its random twin at the
# rate of 1e-4 and 1e-3 that scores best on its own train slice (about 35 minutes in all).
read="--task reading-qa --max-train-examples 2000 --max-eval-examples 400 --epochs 2 --batch-size 32 --max-seq-length 192 --doc-stride 64 --model minilm"
run reading-qa/minilm-pretrained $read --lr 1e-4 --seeds 2
run reading-qa/minilm-random     $read --init random --select-lr 1e-4,1e-3 --select-seeds 1 --seeds 1
choice="--task next-sentence-choice --max-train-examples 600 --max-eval-examples 400 --epochs 2 --batch-size 16 --max-seq-length 96 --model minilm --lr 5e-5"
run next-sentence-choice/minilm-pretrained $choice --seeds 2
run next-sentence-choice/minilm-random     $choice --init random --seeds 1

# Chapter 07 again: Appendix A.3's grid (batch 16/32 x lr 5e-5/3e-5/2e-5 x 2-4 epochs), one
# run each, at a small scale: 400 training snippets, the first 300 dev snippets.
run sentiment/minilm-grid --task sentiment --max-train-examples 400 --max-eval-examples 300 --max-seq-length 64 \
    --model minilm --grid --seeds 1
