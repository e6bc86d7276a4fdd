#!/usr/bin/env bash
# Prepared 2026-12-07 (fourth session), not yet run: the next device call's first part.
#   1. baselines="kept" against "process" (verify/timing/baseline_process.KEPT), alternating verdict
#      by verdict, 4 each on three tasks: wall time per verification and the speedups'
#      spread, the verdict's clock saying `reused` and where the start-up went;
#   2. builtin/models at its new `gpu` shapes (the sizes of the models each op comes from),
#      library renderings against eager and torch.compile, the store copied back whole.
# From the repository root on the GPU machine, carrying .sbx and .kb; everything in $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
t0=$(date +%s)
timeout ${AB_S:-240} python3 benchmarks/verifier_gpu.py --out "$OUT/ab" --repeats ${AB_N:-4} \
  --baselines process,kept --tasks ${AB_TASKS:-relu,softmax,layer_norm} > "$OUT/ab.log" 2>&1
echo "ab rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "^level1" "$OUT/ab.log" | cut -c1-140
t0=$(date +%s)
timeout ${MODELS_S:-300} bash -c "$(declare -f ws); ws bench builtin/models --generator library \
  --device cuda --depth 0 --no-tune ${MODELS_TASKS:+--tasks $MODELS_TASKS} --db /tmp/models.sqlite --json" \
  > "$OUT/models.json" 2> "$OUT/models.err"
echo "models rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "#0:" "$OUT/models.err" | cut -c1-160
python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[2]); sqlite3.connect(sys.argv[1]).backup(d); d.close()" \
  /tmp/models.sqlite "$OUT/models.sqlite"
