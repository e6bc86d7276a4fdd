#!/usr/bin/env bash
# Third device call of 2026-12-03: KernelBench level 1 slices with the library after the
# twin and NaN-fill fixes (14, 15, 83 rejected or wrong before; 40, 41, 44, 62, 80 wrong on
# the twin), then the noise run on the trusted clock for as many tasks as the time allows.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
export WARPSMITH_DB=$OUT/kb.sqlite
K=$(ls .kb/KernelBench/level1 | grep -E '^(14|15|83|40|41|44|62|80)_' | sed 's/\.py$//' | paste -sd,)
timeout ${KB_S:-190} python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench .kb/KernelBench/level1 --generator library --device cuda --depth 0 --no-tune \
  --tasks "$K" --json > "$OUT/kb.json" 2> "$OUT/kb.err"
echo "kb rc=$?"; grep -E "#0:" "$OUT/kb.err" | cut -c1-220
T=rms_norm,relu,softmax,layer_norm,silu,sigmoid,log_softmax,leaky_relu,hardtanh,gelu_tanh_fp16
timeout ${NOISE_S:-200} python3 benchmarks/verifier_gpu.py --out "$OUT/noise" --repeats 5 \
  --tasks "$T" > "$OUT/noise.log" 2>&1
echo "noise rc=$?"; cut -c1-160 "$OUT/noise.log" | grep -v Warn | tail -30
