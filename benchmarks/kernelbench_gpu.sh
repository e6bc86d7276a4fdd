#!/usr/bin/env bash
# KernelBench at its official sizes on one GPU: a bench of LEVEL with GENERATOR (default
# `reference`, the self-check: each task's own reference submitted as the candidate), with
# the GPU's memory sampled by nvidia-smi every 0.5 s beside it. KernelBench's problem files
# are expected in ./KernelBench/level1 … (a git-ignored checkout).
#   bash benchmarks/kernelbench_gpu.sh OUT_DIR level1 [reference|library] [bench options…]
# Writes OUT_DIR/LEVEL-GENERATOR.{json,log}, smi-LEVEL-GENERATOR.csv and the store kb.sqlite
# (resume a cut run with `--resume BENCH_ID --db OUT_DIR/kb.sqlite`).
set -uo pipefail
out=$1; level=$2; gen=${3:-reference}; shift 3 2>/dev/null || shift $#
mkdir -p "$out"
. benchmarks/gpu_env.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt"
nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader -lms 500 \
  > "$out/smi-$level-$gen.csv" &
smi=$!
ws bench "KernelBench/$level" --generator "$gen" --device cuda --db "$out/kb.sqlite" \
  --json "$@" > "$out/$level-$gen.json" 2> >(tee "$out/$level-$gen.log" >&2)
code=$?
kill $smi
exit $code
