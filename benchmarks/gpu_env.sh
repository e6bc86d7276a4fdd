# Sourced by the GPU scripts, from the repository root: the candidate sandbox where the
# machine has none (bubblewrap, libseccomp and pyseccomp carried in .sbx/, fetched on a
# machine with a package registry:
#   mkdir .sbx && (cd .sbx && apt-get download bubblewrap libseccomp2 &&
#                  pip download --no-deps pyseccomp)
# ), warpsmith from src/, unbuffered output, and `ws` for the CLI.
if ! command -v bwrap >/dev/null; then
  for f in .sbx/bubblewrap_*.deb; do dpkg -x "$f" /tmp/bw; done
  export WARPSMITH_BWRAP=/tmp/bw/usr/bin/bwrap
fi
if ! python3 -c 'import ctypes.util,sys; sys.exit(not ctypes.util.find_library("seccomp"))'; then
  for f in .sbx/libseccomp2_*.deb; do dpkg -x "$f" /; done; ldconfig
fi
python3 -c 'import seccomp' 2>/dev/null ||
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .sbx/pyseccomp-*.whl
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1
ws() { python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())' "$@"; }
# The machine's card, driver and versions, printed and kept in $OUT/gpu.txt.
gpu_info() {
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    python3 -c 'import torch, triton; print(torch.__version__, triton.__version__)'
  } | tee "$OUT/gpu.txt"
}
