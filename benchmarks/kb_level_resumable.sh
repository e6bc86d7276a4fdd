#!/usr/bin/env bash
# KernelBench level 1 with the library (--depth 0 --no-tune), the whole level across device
# calls: the bench's store travels in .kbstore/ (git-ignored; name it in `carry`), each call
# resumes the bench it holds (committed tasks are not verified again) for KB_S seconds, then
# stops it as Ctrl-C does (resumable) and sends the store back whole as $OUT/level1.sqlite
# (SQLite's backup: the WAL is in it). Copy that file to .kbstore/ before the next call.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT" .kbstore
. benchmarks/gpu_env.sh
L1=${L1:-.kb/KernelBench/level1}
DB=/tmp/level1.sqlite
[ -f .kbstore/level1.sqlite ] && cp .kbstore/level1.sqlite $DB
ID=$( [ -f $DB ] && python3 -c "import sqlite3, sys; r = sqlite3.connect(sys.argv[1]).execute(
  \"select id from benches where status != 'finished' order by created desc limit 1\").fetchone()
print(r[0] if r else '')" $DB)
WS="python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())'"
if [ -n "$ID" ]; then args="bench --resume $ID --db $DB --json"
else args="bench $L1 --generator library --device ${DEVICE:-cuda} --depth 0 --no-tune --db $DB --json"; fi
t0=$(date +%s)
eval timeout -s INT -k 30 ${KB_S:-400} $WS $args > "$OUT/level1.json" 2> "$OUT/level1.err"
echo "level1 rc=$? in $(( $(date +%s) - t0 )) s (bench ${ID:-new})"
grep -E "#0:" "$OUT/level1.err" | cut -c1-200 | tail -60
python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[2]); sqlite3.connect(sys.argv[1]).backup(d); d.close()" \
  $DB "$OUT/level1.sqlite"
