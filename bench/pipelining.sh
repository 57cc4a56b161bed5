#!/bin/sh
#
# pipelining.sh [ROUNDS]: the fan-out and the chain beside their floors,
# the sluice before ($SLUICE_BEFORE, optional) and after ($SLUICE), in
# ROUNDS interleaved rounds (default 3), each figure a ratio taken within
# its round, then the median and spread of each:
#
#   fan-out: engine-parallel.sh PAR_N K / floor-make-parallel.sh PAR_N K
#     (target >= 0.8)
#   chain: engine-chain.sh CHAIN_N against its durable floor, one fsync'd
#     commit and one process per step: 1 / (1 / make chain rate + 1 /
#     fsync rate) from floor-make-chain.sh and floor-fsync.sh CHAIN_N
#     (target >= 0.95)
#   chain memory: engine-chain.sh memory MEM_SMALL MEM_BIG, peak RSS at
#     MEM_BIG over MEM_SMALL steps of one loop (target <= 1.1)
#
# plus the commits a process step costs in the fan-out (the engine's trace
# notes each commit).  Sizes from the environment: PAR_N (998), K (2),
# CHAIN_N (1000), MEM_SMALL (1000), MEM_BIG (10000).  The first line is
# the host's load; then one line a figure:
#   pipelining: ROUNDS rounds; load L1 -> L2
#   fan-out -jK, PAR_N steps / make: after M [LO-HI]; before M [LO-HI]
#   ...
# Build sluice optimised (see README).  Not part of make check.

set -eu
rounds=${1:-3}
case $rounds in ''|*[!0-9]*|0) echo "usage: $0 [ROUNDS]" >&2; exit 2;; esac
par_n=${PAR_N:-998}
k=${K:-2}
chain_n=${CHAIN_N:-1000}
mem_small=${MEM_SMALL:-1000}
mem_big=${MEM_BIG:-10000}
here=$(dirname "$0")
. "$here/sluice-bin.sh"
after=$SLUICE
before=${SLUICE_BEFORE:-}

out=$(mktemp -d "${TMPDIR:-/tmp}/sluice-pipelining.XXXXXX")
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT TERM

# field FILE WORD: the number after WORD (or ending in WORD: "123/s") in
# the one line of FILE, without a trailing ";" or ",".
field() {
	awk -v w="$2" '{
		for (i = 1; i <= NF; i++) {
			sub(/[;,]$/, "", $i)
			if ($i == w) { print $(i + 1); exit }
			if (substr($i, length($i) - length(w) + 1) == w &&
			    length($i) > length(w)) {
				print substr($i, 1, length($i) - length(w)); exit
			}
		}
	}' "$1"
}

# run NAME SLUICE SCRIPT ARGS...: one run, its line kept in $out/NAME.
run() {
	_name=$1 _bin=$2 _script=$3
	shift 3
	SLUICE=$_bin sh "$here/$_script" "$@" >"$out/$_name" \
	    2>"$out/$_name.err" || {
		echo "$0: $_script failed:" >&2
		cat "$out/$_name.err" >&2
		exit 1
	}
}

# ratio A B: A / B to three places.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'
}

# load: the host's load average over the last minute.
load() {
	awk '{ print $1 }' /proc/loadavg
}

load0=$(load)
: >"$out/par.after" >"$out/par.before" >"$out/chain.after"
: >"$out/chain.before" >"$out/mem.after" >"$out/mem.before"
: >"$out/commits.after" >"$out/commits.before"
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	run mpar "$after" floor-make-parallel.sh "$par_n" "$k"
	run mchain "$after" floor-make-chain.sh "$chain_n"
	run fsync "$after" floor-fsync.sh "$chain_n"
	floor=$(awk -v m="$(field "$out/mchain" /s)" \
	    -v f="$(field "$out/fsync" /s)" \
	    'BEGIN { printf "%.1f", (m > 0 && f > 0 ? 1 / (1 / m + 1 / f) : 0) }')
	for w in before after; do
		eval "bin=\$$w"
		[ -n "$bin" ] || continue
		# shellcheck disable=SC2154 # set by the eval
		run par "$bin" engine-parallel.sh "$par_n" "$k"
		ratio "$(field "$out/par" /s)" "$(field "$out/mpar" /s)" \
		    >>"$out/par.$w"
		echo >>"$out/par.$w"
		awk '{ for (i = 2; i <= NF; i++) if ($i == "commits/step")
		    print $(i - 1) }' "$out/par" >>"$out/commits.$w"
		run chain "$bin" engine-chain.sh "$chain_n"
		ratio "$(field "$out/chain" /s)" "$floor" >>"$out/chain.$w"
		echo >>"$out/chain.$w"
		run mem "$bin" engine-chain.sh memory "$mem_small" "$mem_big"
		awk '{ print $NF }' "$out/mem" >>"$out/mem.$w"
	done
done

# stats FILE: "median [min-max]" of the numbers in FILE, one a line.
stats() {
	sort -n "$1" | awk '/^[0-9.]+$/ { v[++n] = $1 }
	END {
		if (n == 0) { print "-"; exit }
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%.3f [%.3f-%.3f]", m, v[1], v[n]
	}'
}

# line LABEL NAME: the after figures, and the before ones if measured.
line() {
	if [ -n "$before" ]; then
		echo "$1: after $(stats "$out/$2.after");" \
		    "before $(stats "$out/$2.before")"
	else
		echo "$1: after $(stats "$out/$2.after")"
	fi
}

echo "pipelining: $rounds rounds; load $load0 -> $(load)"
line "fan-out -j$k, $par_n true steps / make -j$k (>= 0.8)" par
line "fan-out -j$k: commits per process step" commits
line "chain, $chain_n true steps / durable floor (>= 0.95)" chain
line "chain memory, peak RSS $mem_big / $mem_small steps (<= 1.1)" mem
