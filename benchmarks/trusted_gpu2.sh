#!/usr/bin/env bash
# Second device call of 2026-12-03 (issue 31): the ten-task noise run on the trusted clock
# after moving the watched call's input copy out of the block, then KernelBench level 1 tasks
# 14, 15 and 83 with the library (the verifier rejected them before). Results in $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
T=relu,sigmoid,silu,leaky_relu,hardtanh,gelu_tanh_fp16,softmax,log_softmax,layer_norm,rms_norm
timeout ${NOISE_S:-330} python3 benchmarks/verifier_gpu.py --out "$OUT/noise" --repeats 5 \
  --tasks "$T" > "$OUT/noise.log" 2>&1
echo "noise rc=$?"; tail -3 "$OUT/noise.log"
export WARPSMITH_DB=$OUT/kb.sqlite
timeout ${KB_S:-150} python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench .kb/KernelBench/level1 --generator library --device cuda --depth 0 --no-tune \
  --tasks "${KB_TASKS:-14_Matmul_for_upper_triangular_matrices,15_Matmul_for_lower_triangular_matrices,83_conv_depthwise_2D_square_input_asymmetric_kernel}" \
  --json > "$OUT/kb.json" 2> "$OUT/kb.err"
echo "kb rc=$?"; tail -c 3000 "$OUT/kb.json"; tail -5 "$OUT/kb.err"
