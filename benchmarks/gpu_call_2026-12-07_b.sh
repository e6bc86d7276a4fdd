#!/usr/bin/env bash
# The baselines timed in a process of their own (verify/timing/baseline_process.py, profile field
# `baselines`) against the old way (`here`, the trusted process), alternating in one call:
#   1. six of the ten tasks of docs/benchmarks/verifier.md, 5 verdicts each way;
#   2. the other four, 5 verdicts on the new way only;
#   3. KernelBench level 1 tasks 14, 15 (triangular matmuls) and 83 (depthwise conv) with the
#      library (issue 31's done-when: not rejected).
# Everything comes back under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)'
} | tee "$OUT/gpu.txt"
t0=$(date +%s)
timeout ${AB_S:-270} python3 benchmarks/verifier_gpu.py --out "$OUT/ab" --repeats 5 \
  --baselines process,here --tasks ${AB_TASKS:-relu,silu,layer_norm,rms_norm,softmax,log_softmax} \
  > "$OUT/ab.log" 2>&1
echo "ab rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "^(level1|builtin)" "$OUT/ab.log" | cut -c1-160 | tail -70
t0=$(date +%s)
timeout ${NEW_S:-110} python3 benchmarks/verifier_gpu.py --out "$OUT/new" --repeats 5 \
  --baselines process --tasks ${NEW_TASKS:-sigmoid,leaky_relu,hardtanh,gelu_tanh_fp16} \
  > "$OUT/new.log" 2>&1
echo "new rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "^(level1|builtin)" "$OUT/new.log" | cut -c1-160 | tail -30
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${KB_TASKS:-14|15|83})_" | sed 's/\.py$//' | paste -sd,)
t0=$(date +%s)
timeout ${KB_S:-130} bash -c "$(declare -f ws); ws bench $L1 --generator library --device cuda \
  --depth 0 --no-tune --tasks '$K' --db '$OUT/kb.sqlite' --json" > "$OUT/kb.json" 2> "$OUT/kb.err"
echo "kb rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "#0:" "$OUT/kb.err" | cut -c1-220
cat "$OUT/ab/results.md" "$OUT/new/results.md" 2>/dev/null | head -60
