#!/bin/sh
# bench/cli-start.sh [N]: a command's own start, from its exec to its
# connection to the engine's socket: the part of "approve to next start"
# (bench/approve-latency.sh, bench/cluster-approve.sh) that is the
# command line's and nobody else's.  A stub engine (bench/sock-stub.c)
# listens on the database's socket, stamps each connection as it accepts
# it and answers "approved"; each "sluice --db DB approve 1 -m ok" is
# stamped by monotime -x right before its exec.  Nothing is written, so
# no fsync or engine work blurs the figure.  Prints per round:
#     cli start (LABEL): N approves; exec to connect p50 A ms p99 B ms
#
# Before and after in one run: SLUICE_BEFORE names another sluice (the
# build before a change), SLUICE (else ./sluice, else sluice on $PATH)
# the one under test, one approve of each in turn.  ROUNDS=R (default 1,
# or 5 with SLUICE_BEFORE): R rounds, then per label the median of the
# rounds' p50 and p99 and their spread, and the ratio of the medians:
#     cli start summary (LABEL): R rounds of N approves; p50 A ms
#       [MIN-MAX] p99 B ms [MIN-MAX]
#     cli start ratio: after/before p50 X
# Needs cc.  Default N=200.

set -eu

n=${1:-200}
case $n in ''|*[!0-9]*|0) echo "usage: $0 [N]" >&2; exit 2;; esac
here=$(dirname "$0")
. "$here/sluice-bin.sh"
. "$here/rounds-lib.sh"

B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; rm -rf "$B_DIR"' EXIT
trap 'exit 130' INT TERM
export HOME="$B_DIR/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_STATE_HOME="$HOME/.local/state"
mkdir -p "$HOME"
unset SLUICE_TOOLS SLUICE_TRACE SLUICE_SOCKET SLUICE_DB

"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$here/monotime.c"
"${CC:-cc}" -O2 -o "$B_DIR/sock-stub" "$here/sock-stub.c"

db=$B_DIR/stub.db
"$B_DIR/sock-stub" "$db.sock" "$B_DIR/accepted" &
SPID=$!
k=0
while [ ! -S "$db.sock" ]; do
	k=$((k + 1))
	[ "$k" -lt 200 ] || { echo "$0: the stub never listened" >&2; exit 1; }
	sleep 0.01
done

# approve BINARY LABEL: one approve against the stub, its exec stamped.
approve() {
	"$B_DIR/monotime" -x "$B_DIR/t0.$2" "$1" --db "$db" approve 1 \
	    -m ok >"$B_DIR/out" 2>&1 </dev/null ||
	    { echo "$0: $1 approve failed:" >&2; cat "$B_DIR/out" >&2; exit 1; }
	# The stub appends its stamp after it answers: wait for it.
	k=0
	while [ "$(wc -l <"$B_DIR/accepted")" -lt "$3" ]; do
		k=$((k + 1))
		[ "$k" -lt 500 ] ||
		    { echo "$0: $1 never connected" >&2; exit 1; }
		sleep 0.002
	done
	tail -n 1 "$B_DIR/accepted" >>"$B_DIR/at.$2"
}

# figures LABEL: the round's line for LABEL.
figures() {
	paste "$B_DIR/t0.$1" "$B_DIR/at.$1" |
	    awk '{ printf "%.3f\n", ($2 - $1) / 1000 }' | sort -n >"$B_DIR/lat"
	awk -v label="$1" -v n="$n" '{ v[NR] = $1 } END {
		p50 = v[int((NR - 1) * 0.50) + 1]
		p99 = v[int((NR - 1) * 0.99) + 1]
		printf "cli start (%s): %d approves; exec to connect " \
		    "p50 %.2f ms p99 %.2f ms\n", label, n, p50, p99
		printf "%s %.3f %.3f\n", label, p50, p99 >> figures }' \
	    figures="$B_DIR/figures" "$B_DIR/lat"
}

if [ -n "${SLUICE_BEFORE:-}" ]; then
	[ -x "$SLUICE_BEFORE" ] ||
	    { echo "$0: SLUICE_BEFORE is not a program" >&2; exit 2; }
fi
rounds=${ROUNDS:-$([ -n "${SLUICE_BEFORE:-}" ] && echo 5 || echo 1)}
: >"$B_DIR/figures"
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	: >"$B_DIR/accepted"
	: >"$B_DIR/t0.before" >"$B_DIR/at.before"
	: >"$B_DIR/t0.after" >"$B_DIR/at.after"
	# One each in turn, so that a load that comes and goes touches both.
	i=0 got=0
	while [ "$i" -lt "$n" ]; do
		i=$((i + 1))
		if [ -n "${SLUICE_BEFORE:-}" ]; then
			got=$((got + 1))
			approve "$SLUICE_BEFORE" before "$got"
		fi
		got=$((got + 1))
		approve "$SLUICE" after "$got"
	done
	[ -z "${SLUICE_BEFORE:-}" ] || figures before
	figures after
done
[ "$rounds" -gt 1 ] || exit 0
# The median of each label's rounds, their spread, and the ratio.
rounds_summary "$B_DIR/figures" "cli start" "$n" approves "$B_DIR/medians"
[ -n "${SLUICE_BEFORE:-}" ] || exit 0
awk '{ m[$1] = $2 } END { if (m["before"] > 0)
	printf "cli start ratio: after/before p50 %.2f\n",
	    m["after"] / m["before"] }' \
    "$B_DIR/medians"
