#!/usr/bin/env bash
# The first device call after 2026-12-04 (prepared then, not yet run): the changes of that day
# that no GPU has seen, in the order a failure would matter.
#   1. a smoke verify and the GPU corpora (honest, then red team) on the single-frame timing
#      protocol (the block frame carries the outputs' IPC handles; the clock stops at its last
#      byte) and the candidate environment's allow-list (LD_LIBRARY_PATH, CUDA_*, NVIDIA_*,
#      TRITON_* pass; anything else does not);
#   2. KernelBench level 1 slices with the library on the trusted clock (14, 15, 83 rejected
#      or suspect before; 40, 41, 44, 62, 80 twin fixes), as far as the time allows.
# Run from the repository root on the GPU machine, carrying .sbx and .kb; all output in $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"
python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)' >> "$OUT/gpu.txt"
timeout 120 python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  verify level1/relu src/warpsmith/examples/relu_triton.py --device cuda --json \
  > "$OUT/smoke.json" 2> "$OUT/smoke.err"
echo "smoke rc=$?"; head -c 1200 "$OUT/smoke.json"; tail -15 "$OUT/smoke.err"
timeout ${CORPORA_S:-240} python3 -m pytest -m gpu -q tests/verify/test_gpu.py \
  -p no:cacheprovider > "$OUT/gpu-corpora.log" 2>&1
echo "corpora rc=$?"; grep -E "FAILED|passed|failed" "$OUT/gpu-corpora.log" | tail -25
export WARPSMITH_DB=$OUT/kb.sqlite
KB_TASKS=${KB_TASKS:-14|15|83|40|41|44|62|80|1|2|19|23|36}
K=$(ls .kb/KernelBench/level1 | grep -E "^($KB_TASKS)_" | sed 's/\.py$//' | paste -sd,)
timeout ${KB_S:-200} python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench .kb/KernelBench/level1 --generator library --device cuda --depth 0 --no-tune \
  --tasks "$K" --json > "$OUT/kb.json" 2> "$OUT/kb.err"
echo "kb rc=$?"; grep -E "#0:" "$OUT/kb.err" | cut -c1-200
