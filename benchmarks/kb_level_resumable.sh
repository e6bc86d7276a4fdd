#!/usr/bin/env bash
# KernelBench level 1 with the library (--depth 0 --no-tune), the whole level across device
# calls: the bench's store travels in .kbstore/ (git-ignored; name it in `carry`), each call
# resumes the bench it holds (committed tasks are not verified again) for KB_S seconds, then
# stops it as Ctrl-C does (resumable) and sends the store back whole as $OUT/NAME.sqlite
# (SQLite's backup: the WAL is in it). Copy that file to .kbstore/ before the next call.
# KB_DB names another store file (a second bench beside the first), KB_TASKS a slice.
set -u
OUT=${OUT:-out}; mkdir -p "$OUT" .kbstore
. benchmarks/gpu_env.sh
L1=${L1:-.kb/KernelBench/level1}
NAME=${KB_DB:-level1}
DB=/tmp/$NAME.sqlite
[ -f .kbstore/$NAME.sqlite ] && cp .kbstore/$NAME.sqlite $DB
ID=$( [ -f $DB ] && python3 -c "import sqlite3, sys; r = sqlite3.connect(sys.argv[1]).execute(
  \"select id from benches where status != 'finished' order by created desc limit 1\").fetchone()
print(r[0] if r else '')" $DB)
WS="python3 -c 'import sys; from warpsmith.cli.main import main; sys.exit(main())'"
# EXECUTOR: inline (the default), local or local:N (N verifications at once on the GPU)
if [ -n "$ID" ]; then args="bench --resume $ID --db $DB --json ${EXECUTOR:+--executor $EXECUTOR}"
else args="bench $L1 --generator library --device ${DEVICE:-cuda} --depth 0 --no-tune --db $DB --json \
  --executor ${EXECUTOR:-inline} ${KB_TASKS:+--tasks $KB_TASKS}"; fi
t0=$(date +%s)
eval timeout -s INT -k 30 ${KB_S:-400} $WS $args > "$OUT/$NAME.json" 2> "$OUT/$NAME.err"
echo "$NAME rc=$? in $(( $(date +%s) - t0 )) s (bench ${ID:-new})"
grep -E "#0:" "$OUT/$NAME.err" | cut -c1-200 | tail -60
python3 -c "import sqlite3, sys; d = sqlite3.connect(sys.argv[2]); sqlite3.connect(sys.argv[1]).backup(d); d.close()" \
  $DB "$OUT/$NAME.sqlite"
