#!/usr/bin/env bash
# Is CUPTI, left subscribed after the worker's profiled checked calls, what makes the
# worker's launches and event records slow (docs/benchmarks/kernelbench.md, 2026-12-05)?
# The same tasks benched twice, TEARDOWN_CUPTI unset and then 1 (kineto then calls
# cuptiFinalize when a profiling session stops); compare environment.clock.block_phases_us
# (clock_us, launch_us) and the trusted/in-process gap between the two clock files.
# Run from the repository root on the GPU machine, carrying .sbx and .kb; output in $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${AB_TASKS:-40|43|47|51|82})_" | sed 's/\.py$//' | paste -sd,)
for mode in subscribed teardown; do
  [ "$mode" = teardown ] && export TEARDOWN_CUPTI=1
  WARPSMITH_DB=$OUT/$mode.sqlite timeout ${AB_S:-200} python3 -c \
    'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
    bench $L1 --generator library --device cuda --depth 0 --no-tune --tasks "$K" \
    > /dev/null 2> "$OUT/$mode.err"
  echo "$mode rc=$?"; grep -E "#0:" "$OUT/$mode.err" | cut -c1-120
  python3 benchmarks/clock_phases.py "$OUT/$mode.sqlite" > "$OUT/clock-$mode.jsonl"
done
