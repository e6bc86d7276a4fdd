#!/usr/bin/env bash
# The first device call of 2026-12-06:
#   1. a smoke verify on verifier 11 (the implausibly-fast re-verification, the round-2 fixes);
#   2. KernelBench level 1 tasks 14, 15 (triangular matmuls, honest below the dense floor) and
#      83 (a depthwise convolution far faster than torch.compile: flagged, not held), 92 (the
#      cumsum_exclusive regression fixed on the CPU since), 99 and 100 (never reached on 11);
#   3. builtin/models with the library at each task's GPU shape and own dtype (issue 30's table:
#      the first time that suite runs on a GPU).
# Stores come back in $OUT/all.tgz (read them with `warpsmith report --db`).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT/r"
. benchmarks/gpu_env.sh
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)'
} > "$OUT/r/gpu.txt"
cat "$OUT/r/gpu.txt"
timeout 120 python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  verify level1/relu src/warpsmith/examples/relu_triton.py --device cuda --json \
  > "$OUT/r/smoke.json" 2>> "$OUT/r/stderr.log"
echo "smoke rc=$?"; head -c 300 "$OUT/r/smoke.json"; echo
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${KB_TASKS:-14|15|83|92|99|100})_" | sed 's/\.py$//' | paste -sd,)
WARPSMITH_DB=$OUT/r/kb.sqlite timeout ${KB_S:-170} python3 -c \
  'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench $L1 --generator library --device cuda --depth 0 --no-tune --tasks "$K" \
  > /dev/null 2> "$OUT/r/kb.err"
echo "kb rc=$?"; grep -E "#0:" "$OUT/r/kb.err" | cut -c1-200
WARPSMITH_DB=$OUT/r/models.sqlite timeout ${MODELS_S:-300} python3 -c \
  'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench builtin/models --generator library --device cuda --depth 0 --no-tune \
  > /dev/null 2> "$OUT/r/models.err"
echo "models rc=$?"; grep -E "#0:" "$OUT/r/models.err" | cut -c1-200
tar -czf "$OUT/all.tgz" -C "$OUT" r && rm -rf "$OUT/r"
