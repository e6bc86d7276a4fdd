#!/usr/bin/env bash
# The first device call of 2026-12-05 (second session): is CUPTI, subscribed by the worker's
# profiled checked calls, what makes the worker's launches slow?
#   1. benchmarks/cupti_launch.py: host cost per launch / event record before and after one
#      profiler session, in a plain process, TEARDOWN_CUPTI unset, 0 and 1;
#   2. benchmarks/cupti_ab.sh: the same five tasks through the verifier, subscribed and torn
#      down (environment.clock.block_phases_us and the trusted/in-process gap);
#   3. compute-sanitizer's memcheck on an unmasked load and an honest ReLU;
#   4. KernelBench level 1 tasks no run reached on verifier 10 (KB_TASKS), as far as KB_S allows.
# Everything ends in $OUT/all.tgz (at most 8 files come back from a call).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT/r"
. benchmarks/gpu_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/r/gpu.txt"
for t in unset 0 1; do
  timeout 100 python3 benchmarks/cupti_launch.py --teardown $t >> "$OUT/r/cupti-launch.jsonl"
done
cut -c1-400 "$OUT/r/cupti-launch.jsonl"
# compute-sanitizer's memcheck as the judge of memory safety (verify/checks/memcheck.py)
timeout ${MEMCHECK_S:-150} python3 -m pytest -m gpu -q -rA --tb=short -p no:cacheprovider \
  tests/verify/test_gpu_memcheck.py "tests/verify/test_gpu.py::test_redteam_candidate_is_caught_on_the_gpu" \
  -k "memcheck or E17" > "$OUT/r/memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "^(FAILED|ERROR|PASSED)|passed|failed" "$OUT/r/memcheck.log" | tail -8
OUT=$OUT/r AB_S=${AB_S:-140} bash benchmarks/cupti_ab.sh
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${KB_TASKS:-8[7-9]|9[0-9]|100})_" | sed 's/\.py$//' | paste -sd,)
WARPSMITH_DB=$OUT/r/kb.sqlite timeout ${KB_S:-150} python3 -c \
  'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench $L1 --generator library --device cuda --depth 0 --no-tune --tasks "$K" \
  > /dev/null 2> "$OUT/r/kb.err"
echo "kb rc=$?"; grep -E "#0:" "$OUT/r/kb.err" | cut -c1-200
python3 benchmarks/clock_phases.py "$OUT/r/kb.sqlite" > "$OUT/r/clock-kb.jsonl"
tar -czf "$OUT/all.tgz" -C "$OUT" r && rm -rf "$OUT/r"
