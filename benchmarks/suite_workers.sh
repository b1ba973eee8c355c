#!/usr/bin/env bash
# The fast suite's wall time serially and with pytest-xdist workers (issue 32: keep xdist only if it helps on the
# machine CI and contributors use, 2 cores). Run on an idle machine from the repository root, with pytest-xdist
# installed in .venv (it is not a project dependency); prints one line per run: workers, wall seconds, pytest's summary.
#
#     bash benchmarks/suite_workers.sh            # serial, -n 2
#     bash benchmarks/suite_workers.sh 0 2 4      # the worker counts to compare (0 = serial)
set -euo pipefail
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
for workers in "${@:-0 2}"; do
  for n in $workers; do
    flags=(-q -p no:cacheprovider)
    [ "$n" != 0 ] && flags+=(-n "$n")
    start=$(date +%s.%N)
    summary=$(.venv/bin/pytest "${flags[@]}" 2>&1 | tail -1 || true)
    end=$(date +%s.%N)
    printf '%s workers\t%.0f s\t%s\n' "$n" "$(echo "$end - $start" | bc)" "$summary"
  done
done
