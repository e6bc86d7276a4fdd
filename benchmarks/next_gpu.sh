#!/usr/bin/env bash
# The first device call after 2026-12-04 (prepared then, not yet run), in the order a failure
# would matter:
#   1. a smoke verify and the honest GPU corpus (the memory plan's block sets, the kernels
#      summed by name, the L2/state reads moved after the block's frame: none seen on a GPU);
#   2. KernelBench level 1 with the library: 6 and 8 (the narrowed tf32x3 rule), 19 and 21
#      (the trusted clock against the worker's, environment.clock, after checked_after), then
#      the tasks no run has reached on verifier 10 (39-44, 46-74, 76, 78, 80-100) as far as
#      KB_S allows; the store comes back for `warpsmith report`.
# Run from the repository root on the GPU machine, carrying .sbx and .kb; all output in $OUT
# (at most 8 files come back).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
L1=.kb/KernelBench/level1
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)'
} > "$OUT/gpu.txt"
timeout 120 python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  verify level1/relu src/warpsmith/examples/relu_triton.py --device cuda --json \
  > "$OUT/smoke.json" 2>> "$OUT/stderr.log"
echo "smoke rc=$?"; head -c 400 "$OUT/smoke.json"; echo
timeout ${CORPORA_S:-300} python3 -m pytest -m gpu -q -rA --tb=short -p no:cacheprovider \
  tests/verify/test_gpu.py -k "${CORPORA_K:-honest or gpu_only}" > "$OUT/gpu-corpora.log" 2>&1
echo "corpora rc=$?"; grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/gpu-corpora.log" | tail -25
# knob sweeps outside the verifier (benchmarks/knob_sweep.py): one "PREFIX GRID" a line
[ -n "${SWEEPS:-}" ] && while read -r prefix grid; do
  timeout 60 python3 benchmarks/knob_sweep.py $L1 "$prefix" --grid "$grid" --budget-s 40 \
    >> "$OUT/sweep.jsonl" 2>> "$OUT/stderr.log"
done < "$SWEEPS"
[ -s "$OUT/sweep.jsonl" ] && cut -c1-160 "$OUT/sweep.jsonl"
export WARPSMITH_DB=$OUT/kb.sqlite
KB_TASKS=${KB_TASKS:-6|8|19|21|39|4[0-4]|4[6-9]|5[0-9]|6[0-9]|7[0-4]|76|78|8[0-9]|9[0-9]|100}
K=$(ls $L1 | grep -E "^($KB_TASKS)_" | sed 's/\.py$//' | paste -sd,)
timeout ${KB_S:-200} python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench $L1 --generator library --device cuda --depth 0 --no-tune --tasks "$K" \
  > /dev/null 2> "$OUT/kb.err"
echo "kb rc=$?"; grep -E "#0:" "$OUT/kb.err" | cut -c1-200
python3 benchmarks/clock_phases.py "$OUT/kb.sqlite" > "$OUT/clock.jsonl"
