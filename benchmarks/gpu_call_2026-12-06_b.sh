#!/usr/bin/env bash
# The first device call of the 2026-12-06 morning session (issue 31):
#   1. where the worker's launch time goes (benchmarks/launch_probe.py: the worker's hooks one
#      at a time, in-process and inside bubblewrap+seccomp, and a cProfile of the calls);
#   2. the red-team files of rounds 5 and 6 (E69-E72) on the GPU (the honest corpus: the
#      ten tasks' candidates below are its files);
#   3. the five-verdict speedup spread on the ten tasks of docs/benchmarks/verifier.md, with
#      the trusted clock and the worker's own side by side (benchmarks/verifier_gpu.py).
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
timeout ${PROBE_S:-45} python3 benchmarks/launch_probe.py --calls 200 \
  level1/relu:gpu:$G/relu_triton.py level1/layer_norm:gpu:$G/layer_norm_triton.py \
  level1/softmax:gpu:$G/softmax_rows.py > "$OUT/r/launch_probe.json" 2> "$OUT/r/launch_probe.err"
echo "probe rc=$?"; tail -c 1500 "$OUT/r/launch_probe.json"; tail -5 "$OUT/r/launch_probe.err"
timeout ${CORPUS_S:-60} python3 -m pytest -q -p no:cacheprovider tests/verify/test_gpu.py \
  -k "E69 or E70 or E71 or E72" > "$OUT/r/gpu_corpus.log" 2>&1
echo "corpus rc=$?"; tail -5 "$OUT/r/gpu_corpus.log"
T=relu,sigmoid,silu,leaky_relu,hardtanh,gelu_tanh_fp16,softmax,log_softmax,layer_norm,rms_norm
timeout ${NOISE_S:-420} python3 benchmarks/verifier_gpu.py --out "$OUT/r/noise" --repeats 5 \
  --tasks "${TASKS:-$T}" > "$OUT/r/noise.log" 2>&1
echo "noise rc=$?"; cat "$OUT/r/noise/results.md" 2>/dev/null | head -20
tar -czf "$OUT/all.tgz" -C "$OUT" r && rm -rf "$OUT/r"
