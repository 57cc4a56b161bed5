# bench/engine-lib.sh: shared by the engine benchmarks (sourced, not run).
#
# Finds the sluice binary ($SLUICE, else ./sluice, else sluice on $PATH),
# makes a private temporary directory with its own HOME and database
# (removed on exit or interruption), and offers: now_ns, a timed engine
# run with its peak RSS, flow generators, and percentiles of a trace.

set -eu

now_ns() { date +%s%N; }
case $(now_ns) in *[!0-9]*) echo "$0: date +%s%N unsupported" >&2; exit 2;; esac

. "$(dirname "$0")/sluice-bin.sh"

B_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sluice-bench.XXXXXX")
trap 'rm -rf "$B_DIR"' EXIT
trap 'exit 130' INT TERM
export HOME="$B_DIR/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_STATE_HOME="$HOME/.local/state"
export SLUICE_DB="$B_DIR/bench.db"
mkdir -p "$HOME"
unset SLUICE_TOOLS SLUICE_TRACE

# queue FLOW [COUNT]: record COUNT (default 1) workflows of FLOW with no
# engine running (not timed).
queue() {
	# A database is made by init (a sluice before init made it at run).
	[ -f "$SLUICE_DB" ] || "$SLUICE" init "$SLUICE_DB" >/dev/null 2>&1 || :
	_i=0
	while [ "$_i" -lt "${2:-1}" ]; do
		_i=$((_i + 1))
		"$SLUICE" run "$1" >/dev/null 2>"$B_DIR/run.err" </dev/null || {
			cat "$B_DIR/run.err" >&2
			exit 1
		}
	done
}

# engine_timed ARGS...: run "sluice engine --drain ARGS" with a trace in
# $B_DIR/trace; sets SECS (wall time, from before the exec to after the
# exit) and RSS (peak resident set, KiB).
engine_timed() {
	[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (GNU time) is" \
	    "needed for peak RSS" >&2; exit 2; }
	: >"$B_DIR/trace"
	_t0=$(now_ns)
	SLUICE_TRACE="$B_DIR/trace" /usr/bin/time -f %M -o "$B_DIR/rss" \
	    "$SLUICE" engine --drain "$@" >/dev/null 2>"$B_DIR/engine.err" \
	    </dev/null || {
		echo "$0: the engine failed:" >&2
		cat "$B_DIR/engine.err" >&2
		exit 1
	}
	_t1=$(now_ns)
	SECS=$(awk -v ns=$((_t1 - _t0)) 'BEGIN { printf "%.3f", ns / 1e9 }')
	# shellcheck disable=SC2034 # read by the scripts that source this
	RSS=$(tail -n 1 "$B_DIR/rss")
}

# rate COUNT: COUNT per second of $SECS.
rate() {
	awk -v n="$1" -v s="$SECS" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }'
}

# count STATUS: step rows with STATUS.
count() {
	sqlite3 "$SLUICE_DB" \
	    "SELECT count(*) FROM workflow_steps WHERE status = '$1'"
}

# gaps FROM: from the trace (one engine, one chain of steps), each step
# start's distance in microseconds from the latest FROM event (E or D)
# before it, when one came since the last start.
gaps() {
	awk -v from="$1" '
	$1 == from { last = $2 }
	$1 == "S" { if (last != "") print $2 - last; last = "" }
	' "$B_DIR/trace"
}

# pct P: the P-th percentile (nearest rank) of the numbers on stdin, in
# ms with three decimals ("-" when there are none).
pct() {
	sort -n | awk -v p="$1" '
	{ v[NR] = $1 }
	END {
		if (NR == 0) { print "-"; exit }
		i = int((p / 100) * NR + 0.999999)
		if (i < 1) i = 1
		printf "%.3f", v[i] / 1000
	}'
}

# chain_flow N STEP FILE [LOOP]: write to FILE a flow of N steps, each
# the JSON object STEP, one after another, and print how many steps it
# runs.  A flow holds at most 1000 steps: past that, a noop starts a loop
# of 998 steps (997 STEPs, then an echo adding an "x" to its result) that
# runs V = ceil(N / 998) times, and a noop ends it: 998 * V + 2 steps,
# the echo, first and last built-ins.  With LOOP, always such a loop, of
# LOOP steps (LOOP * V + 2 steps, V = ceil(N / LOOP)): one shape for
# every N, to compare sizes.
chain_flow() {
	awk -v n="$1" -v step="$2" -v out="$3" -v loop="${4:-}" '
	function spec(nx, visits,	s) {
		s = step
		if (visits > 0)
			sub(/}$/, ", \"max_visits\": " visits "}", s)
		if (nx != "")
			sub(/}$/, ", \"next\": \"" nx "\"}", s)
		return s
	}
	BEGIN {
		if (n <= 1000 && loop == "") {
			printf "{" > out
			for (i = 1; i <= n; i++)
				printf "%s\n\"%s\": %s", (i > 1 ? "," : ""),
				    (i > 1 ? "s" i : "start"),
				    spec(i < n ? "s" (i + 1) : "", 0) > out
			print "}" > out
			print n
			exit
		}
		l = loop != "" ? loop + 0 : 998
		v = int((n + l - 1) / l)
		want = ""
		for (i = 0; i < v; i++)
			want = want "x"
		printf "{\"start\": {\"tool\": \"noop\", \"next\": \"s1\"}" > out
		for (i = 1; i < l; i++)
			printf ",\n\"s%d\": %s", i, spec("s" (i + 1), v) > out
		printf ",\n\"s%d\": {\"tool\": \"echo\", \"max_visits\": %d,", \
		    l, v > out
		printf " \"args\": {\"n\": \"{{steps.s%d.result.n}}x\"},", l > out
		printf " \"branch\": [{\"if\": \"result.n == \\\"%s\\\"\",", \
		    want > out
		printf " \"then\": \"fin\"}, {\"else\": \"s1\"}]}" > out
		printf ",\n\"fin\": {\"tool\": \"noop\"}}\n" > out
		print l * v + 2
	}'
}

# idle_start N: N more processes on the host ("sleep", idle, as a busy
# production host has), their pids in $B_DIR/idle.pids, ended by pid on
# exit or by idle_stop.  Prints the host's process count then.
idle_start() {
	: >"$B_DIR/idle.pids"
	trap 'idle_stop; rm -rf "$B_DIR"' EXIT
	_i=0
	while [ "$_i" -lt "$1" ]; do
		_i=$((_i + 1))
		sleep 3600 </dev/null >/dev/null 2>&1 &
		echo $! >>"$B_DIR/idle.pids"
	done
	# shellcheck disable=SC2012 # counting /proc's numeric entries
	HOST_PROCS=$(ls /proc | grep -c '^[0-9][0-9]*$')
}

# idle_stop: end the processes idle_start made, by pid.
idle_stop() {
	[ -s "$B_DIR/idle.pids" ] || return 0
	# shellcheck disable=SC2046 # one pid a word
	kill $(cat "$B_DIR/idle.pids") 2>/dev/null || :
	: >"$B_DIR/idle.pids"
}
