#!/bin/sh
#
# run-all.sh: every engine benchmark beside its floor, in one go, each run
# REPEAT times (taking the median run), then the console benchmark once
# per database and window size, then one line a comparison with the ratio
# and the target.  $SLUICE names the binary (else ./sluice, else sluice on
# $PATH); build it optimised (plain configure, no debug or sanitizers).
# Environment: REPEAT (default 3), K (parallel jobs, default 2), CHAIN_N
# (1000), PAR_N (998), NOOP_N (1000), BURST_W (1000), the two sizes for
# the peak RSS lines, NOOP_BIG (20000) and CHAIN_BIG (4000), and the
# console's two databases, CONSOLE_W (100000) and CONSOLE_SMALL (1000)
# workflows.  Not part of make check.  Takes a few minutes (the first run
# also makes the console's database: half a minute more).

set -eu

here=$(cd "$(dirname "$0")" && pwd)
repeat=${REPEAT:-3}
k=${K:-2}
chain_n=${CHAIN_N:-1000}
par_n=${PAR_N:-998}
noop_n=${NOOP_N:-1000}
burst_w=${BURST_W:-1000}
noop_big=${NOOP_BIG:-20000}
chain_big=${CHAIN_BIG:-4000}
console_w=${CONSOLE_W:-100000}
console_small=${CONSOLE_SMALL:-1000}

out=$(mktemp -d "${TMPDIR:-/tmp}/sluice-runall.XXXXXX")
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT TERM

# median NAME CMD...: run CMD $repeat times; keep the run whose rate (the
# first "N/s" field) is the median in $out/NAME and print it.
median() {
	_name=$1
	shift
	: >"$out/$_name.all"
	_i=0
	while [ "$_i" -lt "$repeat" ]; do
		_i=$((_i + 1))
		"$@" >>"$out/$_name.all"
	done
	awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\/s[;]?$/) { r = $i + 0; break }
		print r "\t" $0
	}' "$out/$_name.all" | sort -n |
	    awk -v m=$(((repeat + 1) / 2)) 'NR == m' | cut -f 2- >"$out/$_name"
	cat "$out/$_name"
}

# field NAME WORD: the number after WORD in NAME's line ("/s" for the rate).
field() {
	awk -v w="$2" '{
		for (i = 1; i <= NF; i++) {
			if (w == "/s" && $i ~ /^[0-9]+\/s[;]?$/) { print $i + 0; exit }
			if ($i == w) { print $(i + 1) + 0; exit }
		}
	}' "$out/$1"
}

# verdict WHAT GOT OP TARGET: one line saying whether GOT meets TARGET
# (OP ">=" or "<"), and by how much it misses.
verdict() {
	awk -v what="$1" -v got="$2" -v op="$3" -v t="$4" 'BEGIN {
		ok = (op == ">=") ? got >= t : got < t
		if (ok)
			printf "%-44s %10s   target %s %s: met\n", what, got, op, t
		else if (op == ">=")
			printf "%-44s %10s   target %s %s: MISSED by %.0f%%\n",
			    what, got, op, t, 100 * (t - got) / t
		else
			printf "%-44s %10s   target %s %s: MISSED (%.1fx)\n",
			    what, got, op, t, got / t
	}'
}

# ratio A B: A / B to two decimals.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}

echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(uname -srm)," \
    "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs," \
    "load:$(uptime | sed 's/.*load average[s]*://')"
echo "# sluice: ${SLUICE:-(found by the scripts)}; median of $repeat runs"

median mpar sh "$here/floor-make-parallel.sh" "$par_n" "$k"
median spar sh "$here/engine-parallel.sh" "$par_n" "$k"
median mchain sh "$here/floor-make-chain.sh" "$chain_n"
median schain sh "$here/engine-chain.sh" "$chain_n"
median snoop sh "$here/engine-noop.sh" "$noop_n"
median fsync sh "$here/floor-fsync.sh" "$burst_w"
median sburst sh "$here/engine-burst.sh" "$burst_w"
repeat=1
median snoopbig sh "$here/engine-noop.sh" "$noop_big"
median schainbig sh "$here/engine-chain.sh" "$chain_big"
# The console, once each: a run is 200 key presses already.
for w in "$console_w" "$console_small"; do
	for size in 100x30 200x60; do
		sh "$here/console.sh" "$w" "$size" | tee "$out/console-$w-$size"
	done
done

echo "# comparisons"
verdict "fan-out -j$k: sluice / make" \
    "$(ratio "$(field spar /s)" "$(field mpar /s)")" ">=" 0.9
verdict "chain: sluice / make" \
    "$(ratio "$(field schain /s)" "$(field mchain /s)")" ">=" 0.85
verdict "chain: exit to next start p50 (ms)" "$(field schain p50)" "<" 0.3
verdict "chain: exit to next start p99 (ms)" "$(field schain p99)" "<" 2
verdict "noop chain: steps/s" "$(field snoop /s)" ">=" 20000
verdict "noop chain: done to next start p50 (ms)" "$(field snoop p50)" \
    "<" 0.3
verdict "noop chain: done to next start p99 (ms)" "$(field snoop p99)" "<" 2
verdict "burst: steps/s" "$(field sburst /s)" ">=" 10000
echo "burst: sluice steps/s / fsync floor commits/s" \
    "$(ratio "$(field sburst /s)" "$(field fsync /s)")"
# rss A B: the peak RSS of two runs of one benchmark at their sizes.
rss() {
	echo "$(field "$1" RSS) KiB at $(field "$1" chain:) steps," \
	    "$(field "$2" RSS) KiB at $(field "$2" chain:)" \
	    "($(field "$1" /s)/s and $(field "$2" /s)/s)"
}
echo "peak RSS, noop chain: $(rss snoop snoopbig)"
echo "peak RSS, true chain: $(rss schain schainbig)"

# worst WORD NAME...: the largest number after WORD in the NAMEs' lines.
worst() {
	_w=$1
	shift
	for _n in "$@"; do
		field "$_n" "$_w"
	done | sort -n | tail -n 1
}
cb="console-$console_w-100x30 console-$console_w-200x60"
cs="console-$console_small-100x30 console-$console_small-200x60"
# shellcheck disable=SC2086 # two names each
verdict "console: first screen (ms), $console_w workflows" \
    "$(worst screen $cb)" "<" 200
verdict "console: key to screen p99 (ms)" "$(worst p99 $cb)" "<" 16
verdict "console: peak RSS (KiB)" "$(worst RSS $cb)" "<" 30720
echo "console, $console_small -> $console_w workflows (worst of 100x30" \
    "and 200x60): first screen $(worst screen $cs) -> $(worst screen $cb)" \
    "ms, key to screen p99 $(worst p99 $cs) -> $(worst p99 $cb) ms," \
    "peak RSS $(worst RSS $cs) -> $(worst RSS $cb) KiB"
