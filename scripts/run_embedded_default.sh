#!/usr/bin/env bash
# The embedded default, offline on CPU: generate a fresh PreciseWikiQA set from the offline
# Wikipedia corpus with the local SmolLM2-135M-Instruct, a MixedEntities set from the offline
# taxonomy / drug lists and a GeneratedEntities set invented by SmolLM2 (playing all three roles of
# the round robin), evaluate SmolLM2 on them through lm_eval, judge with the embedded rule judge,
# and print the metric tables.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
OUT=${OUT:-runs/embedded}
N=${N:-6}
SEED=${SEED:-0}
export HALLUBENCH_CACHE=${HALLUBENCH_CACHE:-$OUT/calls.sqlite}
mkdir -p "$OUT"

hallubench generate precisewikiqa --source wiki-offline --n "$N" --seed "$SEED" \
  --generator smollm2 --out "$OUT/precisewikiqa" --overwrite
hallubench generate mixedentities --n-per-domain "${N_PER_DOMAIN:-3}" --seed "$SEED" \
  --out "$OUT/mixedentities" --overwrite
hallubench generate generatedentities --n-business "${N_PER_DOMAIN:-3}" --n-event "${N_PER_DOMAIN:-3}" \
  --n-product "${N_PER_DOMAIN:-3}" --seed "$SEED" --generators smollm2 smollm2 smollm2 \
  --out "$OUT/generatedentities" --overwrite

rm -rf "$OUT/lm_eval"
hallubench eval --model hf --model_args "$(hallubench model-args)" --batch_size 8 \
  --tasks precisewikiqa,nonexistent_refusal --apply_chat_template --log_samples --output_path "$OUT/lm_eval" \
  --metadata "{\"dataset_precisewikiqa\": \"$OUT/precisewikiqa\", \"dataset_mixedentities\": \"$OUT/mixedentities\", \"dataset_generatedentities\": \"$OUT/generatedentities\", \"judge\": \"rule\"}"

for task in precisewikiqa mixedentities generatedentities; do
  samples=$(ls "$OUT"/lm_eval/*/samples_${task}_*.jsonl | head -n 1)
  hallubench score --task "$task" --samples "$samples" --judge rule \
    --out "$OUT/${task}_result.json" --plot "$OUT/${task}_plot.png"
done
