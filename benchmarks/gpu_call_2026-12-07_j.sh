#!/usr/bin/env bash
# Sixth session of 2026-12-07, a short call on what device time was left: KernelBench level 1
# tasks 46 and 63, which `crashed` on verifier 14 (the baselines' process's memory, left out
# of the plan), benched alone on verifier 15; the store back as $OUT/v15.sqlite.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
KB_DB=v15 EXECUTOR=inline KB_S=${KB_S:-100} \
  KB_TASKS=46_Average_Pooling_3D,63_conv_standard_2D__square_input__square_kernel \
  bash benchmarks/kb_level_resumable.sh
