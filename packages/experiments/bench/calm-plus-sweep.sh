#!/usr/bin/env bash
# The issue-17 target settings, calm vs calm-plus variants on the same reports (bench/calm-plus.ts),
# one bench-lock turn per (seed, setting).
# usage (from packages/experiments): V=variants E=eps R=reps [SETTINGS="adult-k3 nltcs-k3 ..."] bash bench/calm-plus-sweep.sh seed...
# Each run holds the lock file $BENCH_LOCK (default $TMPDIR/calm-ldp-bench.lock) so no two benchmarks
# share the machine, and runs under nice.
BENCH_LOCK=${BENCH_LOCK:-${TMPDIR:-/tmp}/calm-ldp-bench.lock}
R=${R:-10}; E=${E:-0.2,0.5}; V=${V:-mixture}
SETTINGS=${SETTINGS:-"adult-k3 adult-k6 nltcs-k3 nltcs-k6 msnbc-k3"}
declare -A ARGS=(
  [adult-k3]="--data adult --d 15 --k 3 --c 3 --n 65536"
  [adult-k6]="--data adult --d 15 --k 6 --c 3 --n 65536"
  [nltcs-k3]="--data nltcs --d 16 --k 3 --n 65536"
  [nltcs-k6]="--data nltcs --d 16 --k 6 --n 65536"
  [msnbc-k3]="--data msnbc --d 16 --k 3 --n 262144"
)
for S in "$@"; do
  for setting in $SETTINGS; do
    echo "## seed $S $setting: ${ARGS[$setting]}"
    # shellcheck disable=SC2086
    flock "$BENCH_LOCK" nice npx tsx bench/calm-plus.ts --reps "$R" --seed "$S" --eps "$E" --variants "$V" ${ARGS[$setting]} 2>&1 | grep -v "^calm vs\|^eps "
  done
done
