#!/usr/bin/env bash
# Sixth session of 2026-12-07, second device call (issue 28): the level-1 bench of the first
# call resumed with local:3 (its store in .kbstore/level1.sqlite, carried), then ten of the
# tasks it passed benched again one at a time (inline) in a store of their own
# ($OUT/inline.sqlite): the same verdicts and speedups alone as beside other verifications?
# 46 and 63 (crashed in the first call: the baselines process's memory, left out of the
# plan) lead the slice, on verifier 15.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
EXECUTOR=local:3 KB_S=${RESUME_S:-240} bash benchmarks/kb_level_resumable.sh
KB_DB=inline EXECUTOR=inline KB_S=${INLINE_S:-180} \
  KB_TASKS=${SLICE:-46_Average_Pooling_3D,63_conv_standard_2D__square_input__square_kernel,14_Matmul_for_upper_triangular_matrices,16_Matmul_with_transposed_A,40_LayerNorm,42_Max_Pooling_2D,43_Max_Pooling_3D,47_Sum_reduction_over_a_dimension,50_conv_standard_2D__square_input__square_kernel,53_Min_reduction_over_a_dimension,57_conv_transposed_2D__square_input__square_kernel} \
  bash benchmarks/kb_level_resumable.sh
