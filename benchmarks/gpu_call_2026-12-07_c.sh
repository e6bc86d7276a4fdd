#!/usr/bin/env bash
# The first device call of the 2026-12-07 fourth session, on verifier 12 (baselines timed in a
# process of their own):
#   1. builtin/models (issue 30) with the library at each task's own dtype and sizes, against
#      eager and torch.compile (quick profile, one verdict a task);
#   2. KernelBench level 1 at the official sizes (issue 27), the first half of the tasks that
#      failed on verifier 9 (4, 6, 40, 41, 44, 45) with 8 and 12.
# Each bench's store comes back under $OUT as one file, copied with SQLite's backup (the store
# itself lives in /tmp: its write-ahead log and its folder of kernels beside it would pass the
# 8 files a call returns, and a store back without its log loses what the bench wrote last):
# `warpsmith report BENCH_ID --db OUT/X.sqlite` reads a cut bench too.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
run_bench() {  # NAME SECONDS SUITE [TASKS]
  local t0; t0=$(date +%s)
  timeout "$2" bash -c "$(declare -f ws); ws bench $3 --generator library --device cuda \
    --depth 0 --no-tune ${4:+--tasks '$4'} --db '/tmp/$1.sqlite' --json" \
    > "$OUT/$1.json" 2> "$OUT/$1.err"
  echo "$1 rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "#0:" "$OUT/$1.err" | cut -c1-200
  python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[2]); sqlite3.connect(sys.argv[1]).backup(d); d.close()" \
    "/tmp/$1.sqlite" "$OUT/$1.sqlite"
}
run_bench models "${MODELS_S:-320}" builtin/models
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${KB_TASKS:-4|6|8|12|40|41|44|45})_" | sed 's/\.py$//' | paste -sd,)
run_bench kb "${KB_S:-230}" "$L1" "$K"
