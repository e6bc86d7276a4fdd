#!/usr/bin/env bash
# Fifth session of 2026-12-07, first device call: torch.compile's cost in a fresh process
# (warm caches, with and without Inductor's worker pool), then kept_baselines_gpu.sh
# (baselines "kept" against "process"; builtin/models at its gpu shapes).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
t0=$(date +%s)
for task in ${PROBE_TASKS:-level1/layer_norm}; do
  for threads in default 1 pool default 1 pool; do
    if [ $threads = 1 ]; then export TORCHINDUCTOR_COMPILE_THREADS=1
    else unset TORCHINDUCTOR_COMPILE_THREADS; fi
    timeout 60 python3 benchmarks/compile_probe.py $task --device cuda \
      $([ $threads = pool ] && echo --warm-pool) 2>>"$OUT/probe.err" | tee -a "$OUT/probe.jsonl"
  done
done
unset TORCHINDUCTOR_COMPILE_THREADS
echo "probe in $(( $(date +%s) - t0 )) s"
AB_N=${AB_N:-3} AB_S=${AB_S:-200} MODELS_S=${MODELS_S:-170} bash benchmarks/kept_baselines_gpu.sh
