#!/bin/sh
#
# foreach.sh [N] [K] [TOOL]: sluice running one for-each step over N items,
# K at a time ("concurrency": K, and "sluice engine -jK"), each item a
# built-in noop or a {"run": ["true"]} process, queued with no engine
# running, then timed from the start of "sluice engine -jK --drain" to
# its exit.  Compare the rate with engine-parallel.sh N K (a fan-out of
# as many branches) and the peak RSS across N (it should not grow with
# the items: the engine holds one small struct per for-each, never per
# item).  Prints one line:
#   sluice -jK: N TOOL items (for-each, concurrency K) in S s: R/s;
#   peak RSS M KiB
#
# Defaults: N=10000, K=32, TOOL both noop and true (two lines).  With no
# N: N=1000 then 10000, for each tool, each pair followed by the ratio of
# their peak RSS (six lines).  $SLUICE names
# the binary.  Not part of make check.

n=${1:-}
k=${2:-32}
tools=${3:-"noop true"}
case $k in ''|*[!0-9]*|0) echo "usage: $0 [N] [K] [noop|true]" >&2; exit 2;; esac
. "$(dirname "$0")/engine-lib.sh"

# one N TOOL: time one for-each of N items running TOOL.
one() {
	rm -f "$SLUICE_DB" "$SLUICE_DB-wal" "$SLUICE_DB-shm"
	case $2 in
	noop)	_do='{"tool": "noop"}' ;;
	true)	_do='{"run": ["true"]}' ;;
	*)	echo "$0: TOOL is noop or true" >&2; exit 2 ;;
	esac
	awk -v n="$1" 'BEGIN {
		printf "{\"items\": ["
		for (i = 1; i <= n; i++)
			printf "%s\"item-%05d\"", (i > 1 ? ", " : ""), i
		printf "]}\n"
	}' >"$B_DIR/input.json"
	printf '{"start": {"foreach": "{{input.items}}", "concurrency": %d,\n'\
'  "do": %s}}\n' "$k" "$_do" >"$B_DIR/flow.json"
	# A database is made by init (a sluice before init made it at run).
	"$SLUICE" init "$SLUICE_DB" >/dev/null 2>&1 || :
	"$SLUICE" run "$B_DIR/flow.json" --input "$B_DIR/input.json" \
	    >/dev/null 2>"$B_DIR/run.err" </dev/null || {
		cat "$B_DIR/run.err" >&2
		exit 1
	}
	engine_timed -j "$k"
	_done=$(sqlite3 "$SLUICE_DB" "SELECT count(*) FROM workflow_steps
	    WHERE status = 'done' AND item_index IS NOT NULL")
	[ "$_done" -eq "$1" ] ||
	    { echo "$0: $_done of $1 items done" >&2; exit 1; }
	echo "sluice -j$k: $1 $2 items (for-each, concurrency $k) in" \
	    "$SECS s: $(rate "$1")/s; peak RSS $RSS KiB"
}

for tool in $tools; do
	if [ -n "$n" ]; then
		one "$n" "$tool"
	else
		one 1000 "$tool"
		small=$RSS
		one 10000 "$tool"
		echo "sluice -j$k: $tool: peak RSS 10000 / 1000 items:" \
		    "$(awk -v a="$RSS" -v b="$small" \
		    'BEGIN { printf "%.2f", a / b }') (flat: at most 1.15)"
	fi
done
