#!/usr/bin/env bash
# The third device call of 2026-12-04: KernelBench level 1 with the library after the fixes
# of the day (split-K and tf32x3 with a K-major B in the matmul family, transposed
# convolutions' empty phases, the worker's cached memory between checked calls), then as
# much of the rest of level 1 as the time allows. The store comes back: `warpsmith report`
# reads it. All output under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
L1=.kb/KernelBench/level1
export WARPSMITH_DB=$OUT/kb.sqlite
bench() {  # $1: seconds, $2: task-number regex, $3: log name
  local k; k=$(ls $L1 | grep -E "^($2)_" | sed 's/\.py$//' | paste -sd,)
  timeout "$1" python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
    bench $L1 --generator library --device cuda --depth 0 --no-tune --tasks "$k" \
    > /dev/null 2> "$OUT/$3.err"
  echo "$3 rc=$?"; grep -E "#0:" "$OUT/$3.err" | cut -c1-200
}
bench ${FIRST_S:-270} '[1-9]|1[0-8]|45|75|77|79' changed
bench ${REST_S:-240} "${REST:-19|2[0-9]|3[0-9]|4[0-4]|4[6-9]|5[0-9]|6[0-9]}" rest
