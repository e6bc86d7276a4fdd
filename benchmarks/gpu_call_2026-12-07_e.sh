#!/usr/bin/env bash
# The third device call of the 2026-12-07 fourth session (what was left: about 6 minutes):
#   1. where a verification's wait goes: level1/relu and layer_norm verified with the baselines
#      in their own process, the verdict's clock now carrying baselines_startup_s, and a fresh
#      Python's import of torch and CUDA's start timed on their own;
#   2. with FIXED=1, the three library kernels that were wrong on the GPU in this session's first calls
#      (models/qkv_split_qk_norm, models/timestep_embedding_mlp, KernelBench 90_cumprod),
#      after their fixes.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
gpu_info
for i in 1 2; do
  python3 -c 'import time; t = time.perf_counter(); import torch; a = time.perf_counter()
torch.cuda.init(); torch.zeros(1, device="cuda"); b = time.perf_counter()
import warpsmith.verify.child.reference_worker; c = time.perf_counter()
print(f"import torch {a - t:.2f} s, CUDA context {b - a:.2f} s, reference_worker {c - b:.2f} s")'
done | tee "$OUT/startup.txt"
t0=$(date +%s)
timeout ${WAIT_S:-110} python3 benchmarks/verifier_gpu.py --out "$OUT/wait" --repeats ${WAIT_N:-2} \
  --baselines process --tasks ${WAIT_TASKS:-relu,layer_norm} > "$OUT/wait.log" 2>&1
echo "wait rc=$? in $(( $(date +%s) - t0 )) s"
python3 - "$OUT/wait/results.json" <<'PY'
import json, sys
try:
    for r in json.load(open(sys.argv[1])):
        for x in r["runs"]:
            print(r["task"], round(x["wall_s"], 1), x["stages"].get("timing"),
                  x.get("clock", {}).get("baselines_startup_s"))
except (OSError, ValueError) as e:
    print("no results:", e)
PY
run_bench() {  # NAME SECONDS SUITE TASKS
  local t0; t0=$(date +%s)
  timeout "$2" bash -c "$(declare -f ws); ws bench $3 --generator library --device cuda \
    --depth 0 --no-tune --tasks '$4' --db '/tmp/$1.sqlite' --json" > "$OUT/$1.json" 2> "$OUT/$1.err"
  echo "$1 rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "#0:" "$OUT/$1.err" | cut -c1-200
}
[ "${FIXED:-0}" = 1 ] || exit 0
run_bench fixed-models "${MODELS_S:-60}" builtin/models qkv_split_qk_norm,timestep_embedding_mlp
run_bench fixed-kb "${KB_S:-40}" .kb/KernelBench/level1 90_cumprod
