#!/bin/sh
#
# engine-parallel.sh [N] [K]: sluice running N independent do-nothing
# processes K at a time: a noop fanning out to N {"run": ["true"]}
# branches that join a noop (a flow holds at most 1000 steps, so past 998
# branches the N are spread over several such workflows), queued with no
# engine running, then timed from the start of "sluice engine -jK --drain"
# to its exit.  Compare with floor-make-parallel.sh N K.  Prints one line:
#   sluice -jK: N true steps (fan-out) in S s: R/s; peak RSS M KiB; C
#   commits/step
# (the commits from the engine's trace, which notes each; "-" for a
# sluice whose trace does not).
#
# Defaults: N=998, K=the number of CPUs.  $SLUICE names the binary.  Not
# part of make check.

n=${1:-998}
k=${2:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 4)}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N] [K]" >&2; exit 2;; esac
case $k in ''|*[!0-9]*|0) echo "usage: $0 [N] [K]" >&2; exit 2;; esac
. "$(dirname "$0")/engine-lib.sh"

# W workflows of about N / W branches each.
w=$(((n + 997) / 998))
i=0
left=$n
while [ "$i" -lt "$w" ]; do
	b=$((left / (w - i)))
	left=$((left - b))
	i=$((i + 1))
	awk -v b="$b" -v out="$B_DIR/flow$i.json" 'BEGIN {
		printf "{\"start\": {\"tool\": \"noop\", \"parallel\": [" > out
		for (j = 1; j <= b; j++)
			printf "%s\"b%d\"", (j > 1 ? ", " : ""), j > out
		printf "]},\n" > out
		for (j = 1; j <= b; j++)
			printf "\"b%d\": {\"run\": [\"true\"], \"join\": \"end\"},\n",
			    j > out
		printf "\"end\": {\"tool\": \"noop\"}}\n" > out
	}'
	queue "$B_DIR/flow$i.json"
done
engine_timed -j "$k"
ndone=$(sqlite3 "$SLUICE_DB" "SELECT count(*) FROM workflow_steps
    WHERE status = 'done' AND kind = 'run'")
[ "$ndone" -eq "$n" ] ||
    { echo "$0: $ndone of $n steps done" >&2; exit 1; }
commits=$(awk -v n="$n" '$1 == "C" { c++ }
    END { if (c > 0) printf "%.3f", c / n; else print "-" }' "$B_DIR/trace")
echo "sluice -j$k: $n true steps (fan-out) in $SECS s: $(rate "$n")/s;" \
    "peak RSS $RSS KiB; $commits commits/step"
