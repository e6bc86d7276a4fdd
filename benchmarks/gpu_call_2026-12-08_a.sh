#!/usr/bin/env bash
# 2026-12-08, first device call: builtin/models at its gpu shapes with local:3 (issue 30's
# table, 4 of 33 measured so far), then the level-1 bench of 2026-12-07 resumed with local:3
# (its store in .kbstore/level1.sqlite, carried). Both stores come back whole under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
L1=builtin/models KB_DB=models EXECUTOR=local:3 KB_S=${MODELS_S:-260} \
  bash benchmarks/kb_level_resumable.sh
EXECUTOR=local:3 KB_S=${RESUME_S:-230} bash benchmarks/kb_level_resumable.sh
