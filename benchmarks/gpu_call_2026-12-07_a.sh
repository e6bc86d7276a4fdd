#!/usr/bin/env bash
# The second device call of the 2026-12-07 session (issues 27 and 31), on verifier 12 (the
# baselines timed in a process of their own):
#   1. KernelBench level 1 with the library at the official sizes, tasks 6, 8 (the narrowed
#      tf32x3 rule), 12 (diagonal matmul) and 92 (exclusive cumsum, rejected on verifier 11);
#   2. the red-team and GPU-only corpora, then the honest corpus, through
#      tests/verify/test_gpu.py, several verifications at once (pytest-xdist carried in
#      .sbx/: the machine has no registry). Statuses only: no speed is read from them.
# Everything comes back under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
python3 -c 'import xdist' 2>/dev/null ||
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .sbx/execnet-*.whl .sbx/pytest_xdist-*.whl
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)'
} | tee "$OUT/gpu.txt"
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${KB_TASKS:-6|8|12|92})_" | sed 's/\.py$//' | paste -sd,)
t0=$(date +%s)
timeout ${KB_S:-240} bash -c "$(declare -f ws); ws bench $L1 --generator library --device cuda \
  --depth 0 --no-tune --tasks '$K' --db '$OUT/kb.sqlite' --json" > "$OUT/kb.json" 2> "$OUT/kb.err"
echo "kb rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "#0:" "$OUT/kb.err" | cut -c1-220
t0=$(date +%s)
timeout ${RT_S:-200} python3 -m pytest -v -rfE --tb=line -p no:cacheprovider -n ${RT_N:-6} \
  tests/verify/test_gpu.py -k "redteam or gpu_only" > "$OUT/corpora-redteam.log" 2>&1
echo "redteam rc=$? in $(( $(date +%s) - t0 )) s"; tail -4 "$OUT/corpora-redteam.log"
t0=$(date +%s)
timeout ${HONEST_S:-150} python3 -m pytest -v -rfE --tb=short -p no:cacheprovider -n ${HONEST_N:-3} \
  tests/verify/test_gpu.py -k honest > "$OUT/corpora-honest.log" 2>&1
echo "honest rc=$? in $(( $(date +%s) - t0 )) s"; tail -4 "$OUT/corpora-honest.log"
