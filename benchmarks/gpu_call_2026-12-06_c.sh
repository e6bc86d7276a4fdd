#!/usr/bin/env bash
# The first device call of the 2026-12-06 evening session:
#   1. where the worker's launch time goes (benchmarks/launch_probe.py, with the time it did
#      not get in the morning: the worker's hooks one at a time, in-process and inside
#      bubblewrap+seccomp, and a cProfile of the calls);
#   2. KernelBench level 1 tasks 6 and 8 (the narrowed tf32x3 rule, never run on a GPU), 12
#      (diagonal matmul, 0.66x eager) and 92 (exclusive cumsum, rejected on verifier 11).
# Everything comes back in $OUT/all.tgz.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT/r"
. benchmarks/gpu_env.sh
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)'
} > "$OUT/r/gpu.txt"
cat "$OUT/r/gpu.txt"
G=tests/kernels/good
timeout ${PROBE_S:-150} python3 benchmarks/launch_probe.py --calls 200 \
  level1/relu:gpu:$G/relu_triton.py level1/layer_norm:gpu:$G/layer_norm_triton.py \
  level1/softmax:gpu:$G/softmax_rows.py > "$OUT/r/launch_probe.json" 2> "$OUT/r/launch_probe.err"
echo "probe rc=$?"; tail -c 3000 "$OUT/r/launch_probe.json"; tail -5 "$OUT/r/launch_probe.err"
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${KB_TASKS:-6|8|12|92})_" | sed 's/\.py$//' | paste -sd,)
WARPSMITH_DB=$OUT/r/kb.sqlite timeout ${KB_S:-200} python3 -c \
  'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench $L1 --generator library --device cuda --depth 0 --no-tune --tasks "$K" \
  > /dev/null 2> "$OUT/r/kb.err"
echo "kb rc=$?"; grep -E "#0:" "$OUT/r/kb.err" | cut -c1-200
tar -czf "$OUT/all.tgz" -C "$OUT" r && rm -rf "$OUT/r"
