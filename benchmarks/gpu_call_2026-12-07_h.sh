#!/usr/bin/env bash
# Sixth session of 2026-12-07, first device call (issues 27 and 28): `local:N` (N
# verifications at once on one GPU, verify/isolation/gpulock.py) on four built-in tasks as a smoke
# test, then KernelBench level 1 with the library through kb_level_resumable.sh, with
# local:N where the smoke test's verdicts all passed, else inline; the store comes back as
# $OUT/level1.sqlite (copy it to .kbstore/ to resume). From the repository root, carrying
# .sbx and .kb; everything in $OUT. CALL_S: the seconds this call may use in all.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
began=$(date +%s)
N=${N:-3}
timeout 150 bash -c "$(declare -f ws); ws bench builtin/level1 --generator library \
  --device cuda --depth 0 --no-tune --tasks relu,softmax,layer_norm,matmul_fp16 \
  --executor local:$N --db /tmp/smoke.sqlite --json" > "$OUT/smoke.json" 2> "$OUT/smoke.err"
echo "smoke rc=$? in $(( $(date +%s) - began )) s"; grep -E "#0:" "$OUT/smoke.err" | cut -c1-160
passed=$(grep -cE "#0: passed" "$OUT/smoke.err")
EXECUTOR=inline; [ "$passed" -ge 4 ] && EXECUTOR=local:$N
left=$(( ${CALL_S:-570} - ($(date +%s) - began) - 30 ))
echo "level 1 with --executor $EXECUTOR for $left s"
EXECUTOR=$EXECUTOR KB_S=$left bash benchmarks/kb_level_resumable.sh
