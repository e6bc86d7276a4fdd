#!/usr/bin/env bash
# The candidate sandbox on a GPU machine: what it needs there, and what it costs.
# Carries bubblewrap (and libseccomp, pyseccomp) unpacked from Debian/PyPI files in .sbx/
# where the machine has none:
#   mkdir .sbx && (cd .sbx && apt-get download bubblewrap libseccomp2 &&
#                  pip download --no-deps pyseccomp)
# Run from the repository root: bash benchmarks/sandbox_gpu.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp/sandbox-gpu}; mkdir -p "$out"
. benchmarks/gpu_env.sh
python3 - <<'PY' 2>&1 | tee "$out/probe.txt"
from warpsmith.verify.isolation import jail
import torch, os, glob
j = jail.current()
print("sandbox:", j.describe(), "|", j.detail)
print("torch", torch.__version__, torch.cuda.get_device_name(), "uid", os.geteuid())
print("nvidia nodes:", glob.glob("/dev/nvidia*"))
PY
for mode in auto none; do
  for k in relu_triton softmax_rows sigmoid_cuda_nvrtc; do
    f=$(ls tests/kernels/good/$k.py tests/kernels/gpu/$k.py 2>/dev/null | head -1)
    task=$(sed -n 's/^# task: *//p' "$f")
    for i in 1 2 3; do
      s=$(date +%s.%N)
      WARPSMITH_SANDBOX=$mode ws verify "$task" "$f" --device cuda --json --no-cache \
        --db "$out/v.sqlite" > "$out/v.json" 2> "$out/err.txt"
      e=$(date +%s.%N)
      python3 - "$mode" "$k" "$s" "$e" "$out/v.json" "$out/err.txt" <<'PY' | tee -a "$out/walls.txt"
import json, sys
mode, k, s, e, path, err = sys.argv[1:]
try:
    v = json.load(open(path))
    print(mode, k, v["status"], f"wall {float(e)-float(s):.1f}s", v["environment"].get("sandbox"),
          f"x_eager {v.get('speedup_vs_eager')}", (v.get("reasons") or [""])[0][:150],
          v.get("log_tail", "")[-300:].replace("\n", " | ") if v["status"] != "passed" else "")
except Exception as ex:
    print(mode, k, "NO VERDICT", ex, open(err).read()[-800:])
PY
    done
  done
done
