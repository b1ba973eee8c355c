#!/usr/bin/env bash
# Stability over regenerated sets, measured offline on CPU (docs/stability.md, docs/benchmarks.md): TRIALS sets each of
# PreciseWikiQA and MixedEntities (NonExistentRefusal) generated offline with seeds SEED..SEED+TRIALS-1 (as in
# scripts/run_embedded_default.sh), two setups of SmolLM2-135M-Instruct run through lm-eval on every trial, judged by
# the embedded rule judges, then `hallubench report` with its stability section.
#   greedy:      SmolLM2-135M-Instruct, greedy, its own default system prompt
#   cautious:    the same model, greedy, with the system prompt in $CAUTIOUS below
# Outputs (OUT=runs/stability): sets/<bench>/trial-<seed>/ + trials.json, lm_eval/<setup>/<bench>/trial-<seed>/,
# results/<setup>/<bench>/trial-<seed>.json (hallubench score), report/ (report.md, stability.csv, stability_*.png).
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
OUT=${OUT:-runs/stability}
SEED=${SEED:-0}
TRIALS=${TRIALS:-3}
export HALLUBENCH_CACHE=${HALLUBENCH_CACHE:-$OUT/calls.sqlite}
CAUTIOUS="Answer in one short sentence. If you do not know the answer, or the thing asked about does not exist, say that you do not know."
step() { printf '\n[stability] %s (%s)\n' "$1" "$(date +%T)" >&2; }

step "test sets: $TRIALS trials each"
hallubench generate precisewikiqa --source wiki-offline --question-writer offline --n "${N_PWQA:-16}" \
  --seed "$SEED" --trials "$TRIALS" --out "$OUT/sets/precisewikiqa" --overwrite
hallubench generate mixedentities --n-per-domain "${N_PER_DOMAIN:-4}" --seed "$SEED" --trials "$TRIALS" \
  --out "$OUT/sets/mixedentities" --overwrite

rm -rf "$OUT/lm_eval" "$OUT/results" "$OUT/report"  # this script's own outputs, rebuilt every run
for setup in greedy cautious; do
  extra=()
  [ "$setup" = cautious ] && extra=(--system_instruction "$CAUTIOUS")
  for bench in precisewikiqa mixedentities; do
    step "lm_eval: $setup on $bench (one run per trial)"
    hallubench eval --trials "$OUT/sets/$bench" --model hf --model_args "$(hallubench model-args)" --batch_size 16 \
      --tasks "$bench" --gen_kwargs "max_gen_toks=${MAX_NEW:-32}" --apply_chat_template "${extra[@]}" \
      --log_samples --output_path "$OUT/lm_eval/$setup/$bench" --metadata '{"judge": "rule"}'
    for trial in "$OUT/lm_eval/$setup/$bench"/trial-*; do
      hallubench score --task "$bench" --samples "$trial" --model "smollm2-$setup" \
        --out "$OUT/results/$setup/$bench/$(basename "$trial").json" > /dev/null
    done
  done
done

step "report with the stability section"
hallubench report "$OUT"/results/*/*/*.json --out "$OUT/report"
step "done: $OUT/report/report.md, $OUT/report/stability.csv, $OUT/report/stability_*.png"
