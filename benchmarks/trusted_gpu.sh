#!/usr/bin/env bash
# The trusted-side protocol on a GPU, in one device call (issue 31): a smoke verify, the honest
# corpus through pytest, then the ten tasks of docs/benchmarks/verifier.md verified REPEATS
# times each (speedup spread, wall per verification, trusted-side and in-process clocks).
# Everything lands in $OUT (or ./out). Run from the repository root on the GPU machine.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
REPEATS=${REPEATS:-5}
T=${TASKS:-relu,sigmoid,silu,leaky_relu,hardtanh,gelu_tanh_fp16,softmax,log_softmax,layer_norm,rms_norm}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/gpu.txt"
python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)' >> "$OUT/gpu.txt"
timeout 120 python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  verify level1/relu src/warpsmith/examples/relu_triton.py --device cuda --json \
  > "$OUT/smoke.json" 2> "$OUT/smoke.err"
echo "smoke rc=$?"; head -c 1500 "$OUT/smoke.json"; tail -20 "$OUT/smoke.err"
timeout ${HONEST_S:-200} python3 -m pytest -m gpu -q -x tests/verify/test_gpu.py -k honest \
  -p no:cacheprovider > "$OUT/gpu-honest.log" 2>&1
echo "honest rc=$?"; tail -15 "$OUT/gpu-honest.log"
timeout ${NOISE_S:-240} python3 benchmarks/verifier_gpu.py --out "$OUT/noise" --repeats "$REPEATS" \
  --tasks "$T" > "$OUT/noise.log" 2>&1
echo "noise rc=$?"; tail -5 "$OUT/noise.log"
cp "$OUT"/noise/results.json "$OUT/noise.json" 2>/dev/null; true
