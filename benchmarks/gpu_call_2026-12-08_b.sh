#!/usr/bin/env bash
# 2026-12-08, verifier 16 on a GPU: eight KernelBench level-1 tasks one at a time (inline):
# 19 and 34 (too_large on an H100 on verifier 14), 46 and 63 (crashed: the baselines'
# process's memory), four that passed (the alone side of issue 28's comparison); then the
# whole level on verifier 16 with local:3, resumable (its store comes back as
# $OUT/level1v16.sqlite: copy it to .kbstore/ for the next call, which resumes it).
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
KB_DB=inline16 EXECUTOR=inline KB_S=${INLINE_S:-170} \
  KB_TASKS=${SLICE:-19_ReLU,34_InstanceNorm,46_Average_Pooling_3D,63_conv_standard_2D__square_input__square_kernel,40_LayerNorm,47_Sum_reduction_over_a_dimension,50_conv_standard_2D__square_input__square_kernel,16_Matmul_with_transposed_A} \
  bash benchmarks/kb_level_resumable.sh
KB_DB=level1v16 EXECUTOR=local:3 KB_S=${LEVEL_S:-360} bash benchmarks/kb_level_resumable.sh
