#!/usr/bin/env bash
# The second device call of the 2026-12-07 fourth session, on verifier 12:
#   1. KernelBench level 1, the second half of the tasks that failed on verifier 9
#      (62, 75, 77, 79, 80, 90) with 92;
#   2. the seven of docs/benchmarks/verifier.md's ten tasks not yet measured with the baselines
#      in their own process, 3 verdicts each;
#   3. the honest corpus through tests/verify/test_gpu.py, 3 verifications at once (statuses
#      only), each result printed as it ends.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT"
. benchmarks/gpu_env.sh
python3 -c 'import xdist' 2>/dev/null ||
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .sbx/execnet-*.whl .sbx/pytest_xdist-*.whl
gpu_info
L1=.kb/KernelBench/level1
K=$(ls $L1 | grep -E "^(${KB_TASKS:-62|75|77|79|80|90|92})_" | sed 's/\.py$//' | paste -sd,)
t0=$(date +%s)
timeout ${KB_S:-200} bash -c "$(declare -f ws); ws bench $L1 --generator library --device cuda \
  --depth 0 --no-tune --tasks '$K' --db '$OUT/kb2.sqlite' --json" > "$OUT/kb2.json" 2> "$OUT/kb2.err"
echo "kb2 rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "#0:" "$OUT/kb2.err" | cut -c1-200
t0=$(date +%s)
timeout ${TEN_S:-230} python3 benchmarks/verifier_gpu.py --out "$OUT/ten" --repeats 3 \
  --baselines process --tasks ${TEN_TASKS:-relu,rms_norm,softmax,log_softmax,sigmoid,leaky_relu,hardtanh} \
  > "$OUT/ten.log" 2>&1
echo "ten rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "^(level1|builtin)" "$OUT/ten.log" | cut -c1-160 | tail -30
t0=$(date +%s)
timeout ${HONEST_S:-140} python3 -m pytest -v -rfE --tb=short -p no:cacheprovider -n ${HONEST_N:-3} \
  tests/verify/test_gpu.py -k honest > "$OUT/corpora-honest.log" 2>&1
echo "honest rc=$? in $(( $(date +%s) - t0 )) s"; grep -E "PASSED|FAILED|ERROR" "$OUT/corpora-honest.log" | cut -c1-200 | tail -40
