#!/usr/bin/env bash
# 2026-12-08, second call on verifier 16: the level-1 bench of _b.sh resumed with local:3
# (.kbstore/level1v16.sqlite, carried), then builtin/models at its gpu shapes with local:3.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
KB_DB=level1v16 EXECUTOR=local:3 KB_S=${LEVEL_S:-300} bash benchmarks/kb_level_resumable.sh
L1=builtin/models KB_DB=models16 EXECUTOR=local:3 KB_S=${MODELS_S:-230} \
  bash benchmarks/kb_level_resumable.sh
