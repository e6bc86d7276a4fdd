#!/usr/bin/env bash
# The second device call of 2026-12-04: the three honest GPU corpus files that failed in the
# first (memory plan and report size), fp32 matmul precision (tf32x3 against IEEE and
# cuBLAS), where transposed convolutions 75/77/79 go wrong, which process holds task 45's
# memory, and level-1 slices after split-K. All output under $OUT.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
L1=.kb/KernelBench/level1
timeout 150 python3 -m pytest -m gpu -q -rA --tb=short -p no:cacheprovider tests/verify/test_gpu.py \
  -k 'autotune_configs_triton or linear_fp16_two_kernels or rms_norm_triton' > "$OUT/honest3.log" 2>&1
grep -E "^(PASSED|FAILED)|^E |passed|failed" "$OUT/honest3.log" | cut -c1-300
timeout 150 python3 benchmarks/gemm_precision.py $L1 1_ 2_ 4_ 6_ 8_ 9_ 17_ 18_ > "$OUT/gemm_precision.jsonl" 2>&1
cut -c1-400 "$OUT/gemm_precision.jsonl"
timeout 90 python3 benchmarks/diag_library.py $L1 75_ 77_ 79_ > "$OUT/diag.jsonl" 2>&1
cut -c1-700 "$OUT/diag.jsonl"
python3 -c 'import sys; from warpsmith.library import generate; from warpsmith.tasks.loader import load_task
open("/tmp/45.py", "w").write(generate(load_task(sys.argv[1])).source)' $L1/45_Average_Pooling_2D.py
( while true; do date +%T.%N | cut -c1-12; nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
    ps -eo pid,rss,args --sort=-rss | grep -E "python|bwrap" | head -5 | cut -c1-160; sleep 0.5; done ) > "$OUT/mem45.log" 2>&1 &
POLL=$!
timeout 120 python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  verify $L1/45_Average_Pooling_2D.py /tmp/45.py --device cuda --json > "$OUT/v45.json" 2> "$OUT/v45.err"
kill $POLL
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); print(v["status"], v.get("reasons"), v.get("memory"), v.get("speedup_vs_eager"))' "$OUT/v45.json" | cut -c1-600
export WARPSMITH_DB=/tmp/kb.sqlite
K=$(ls $L1 | grep -E "^(4|6|1|17|18|45)_" | sed 's/\.py$//' | paste -sd,)
timeout ${KB_S:-120} python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' \
  bench $L1 --generator library --device cuda --depth 0 --no-tune --tasks "$K" --json > "$OUT/kb.json" 2> "$OUT/kb.err"
echo "kb rc=$?"; grep -E "#0:" "$OUT/kb.err" | cut -c1-220
