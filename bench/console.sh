#!/bin/sh
#
# console.sh [WORKFLOWS [COLSxROWS]]: the console's speed and size on a
# large database.  Makes (once, then keeps) a database of WORKFLOWS
# workflows with console-gen.sh, then for each window size opens the
# console on a fresh copy of it in tmux, as "sluice --db DB" with the
# console hosting the engine, and reads the console's trace ($SLUICE_TRACE:
# "U first", "U key" and "U draw" lines, stamped in CLOCK_MONOTONIC
# microseconds like the engine's) to time:
#
#   first screen    from a stamp taken just before the exec of sluice
#                   (monotime.c) to the first complete screen flushed;
#   key to screen   from the console reading a key to the end of the
#                   redraw it caused (doupdate returned): KEYS presses
#                   (default 200) of j, k, PgDn, PgUp, g, G, Enter, t,
#                   Esc, ?, 1, 2, 5 through the Workflows view (its
#                   newest and oldest rows), a run view and its timeline,
#                   the help, the Gates and Audit views, each sent once
#                   the last one's redraw is done; p50 and p99;
#   send to screen  the same from just before "tmux send-keys": adds
#                   tmux's client, the pty and curses' wait after Esc;
#   peak RSS        VmHWM of the console's process after the presses.
#
# With no arguments: 100000 workflows, then 1000 to show the figures do
# not grow with the database, each at 100x30 and 200x60.  "foreach [N
# [COLSxROWS]]" instead opens the console on one workflow, a for-each of
# N (default 10000) items 32 at a time, which the console's engine runs
# while the keys are pressed.  WORKFLOWS alone: both sizes.  The items
# run "sleep 0.2" ($FOREACH_SLEEP), not "true":
# 10,000 "true" items end within a few seconds, before the presses do,
# and a console over a finished run is not what is measured; the line
# says how many items had not ended when the last key was drawn.  One
# line a run:
#   sluice console: W workflows (N steps), COLSxROWS: first screen A ms;
#   key to screen p50 B ms p99 C ms (K keys); send to screen p50 D ms
#   p99 E ms; peak RSS M KiB
#
# The databases live in $CONSOLE_DB_DIR (default ${TMPDIR:-/tmp}/
# sluice-bench-cache), one per schema version, remade when console-gen.sh
# is newer.
# Copies are read from the page cache: the figures are for a warm cache.
# $SLUICE names the binary (build it optimised).  STEPS_PER_WF (10),
# KEYS (200) and IDLE (0: how many idle processes to add to the host's
# while the console runs; see idle_start in engine-lib.sh) from the
# environment.  Needs tmux, sqlite3 and cc.  Not
# part of make check.
#
# MEMBER=1: a team member's console in service mode instead
# (service-lib.sh: the script makes a service account and a member,
# says so, and removes them at exit; needs root).  The engine runs as
# the service account on its copy of the database, started before the
# console (not timed), and the console runs as the member, reading
# through the engine's socket; a release before the socket reads read
# the file through the group's access instead, as its members did.
#
# SLUICE_BEFORE names an older sluice to measure beside $SLUICE in the
# same run: ROUNDS (default 1, or 3 with SLUICE_BEFORE) rounds, each
# before then after, each line labelled "(before)" or "(after)"; each
# binary gets the database its own schema makes (the cache keeps one
# per schema version).  With more than one round, a summary line per
# label and size: the median of the rounds and their spread [min-max]
# for the first screen, key to screen p99 and peak RSS, then the
# after/before ratio of the medians:
#   sluice console summary (LABEL): R rounds, W workflows, COLSxROWS:
#   first screen A ms [MIN-MAX]; key to screen p99 B ms [MIN-MAX];
#   peak RSS C KiB [MIN-MAX]
#   sluice console after/before: W workflows, COLSxROWS: first screen
#   X; key to screen p99 Y; peak RSS Z

here=$(cd "$(dirname "$0")" && pwd)
. "$here/engine-lib.sh"
. "$here/service-lib.sh"
. "$here/console-db.sh"

for c in tmux sqlite3 "${CC:-cc}"; do
	command -v "$c" >/dev/null ||
	    { echo "$0: $c is needed" >&2; exit 2; }
done
steps=${STEPS_PER_WF:-10}
keys=${KEYS:-200}
cache=${CONSOLE_DB_DIR:-${TMPDIR:-/tmp}/sluice-bench-cache}
sock=sluice-bench-$$
member=${MEMBER:-}
[ -z "$member" ] || svc_needs

# cleanup: the tmux server, the engine and accounts of MEMBER=1, the idle
# processes of IDLE, our directory.
cleanup() {
	tmux -L "$sock" kill-server >/dev/null 2>&1 || :
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
	[ -z "$member" ] || svc_remove
	idle_stop
	rm -rf "$B_DIR"
}
trap cleanup EXIT
unset TMUX TMUX_PANE

"${CC:-cc}" -O2 -o "$B_DIR/monotime" "$here/monotime.c"
mono() { "$B_DIR/monotime"; }

# t KEY: tmux against the benchmark's own server.
t() {
	tmux -L "$sock" -f /dev/null "$@"
}

# ulines WHAT: how many "U WHAT" lines the trace holds.
ulines() {
	grep -c "^U $1 [0-9]*\$" "$B_DIR/trace" 2>/dev/null || true
}

# drawn N: the trace has N key lines and a draw line after the last.
drawn() {
	awk -v n="$1" '
	$1 == "U" && $2 == "key" && NF == 3 { k++; d = 0 }
	$1 == "U" && $2 == "draw" && NF == 3 && k == n { d = 1 }
	END { exit !(k >= n && d) }' "$B_DIR/trace"
}

# start COLSxROWS DB: the console on DB in a new session; $PID its pid.
start() {
	_c=${1%x*}
	_r=${1#*x}
	: >"$B_DIR/trace"
	: >"$B_DIR/t0"
	t kill-session -t b >/dev/null 2>&1 || true
	t new-session -d -s b -x "$_c" -y "$_r" 'exec cat' \; \
	    set-option -s exit-empty off \; set-option -g status off \; \
	    set-option -g default-shell /bin/sh
	t set-option -w -t b window-size manual 2>/dev/null ||
	    t set-option -t b window-size manual
	_as=
	if [ -n "$member" ]; then
		# The member writes the trace and the stamp.
		chown "$SVC_MEMBER" "$B_DIR/trace" "$B_DIR/t0"
		_as=$(svc_as_member)
	fi
	t resize-window -t b -x "$_c" -y "$_r" \; respawn-pane -k -t b \
	    "unset LINES COLUMNS; exec $_as env TERM=xterm-256color \
	    LANG=C.UTF-8 LC_ALL=C.UTF-8 SLUICE_TRACE='$B_DIR/trace' \
	    '$B_DIR/monotime' -x '$B_DIR/t0' '$SLUICE' --db '$2' \
	    2>'$B_DIR/console.err'"
	PID=$(t display-message -p -t b '#{pane_pid}')
}

# wait_until SECONDS CMD...: poll CMD every 2 ms; 1 at the deadline.
wait_until() {
	_end=$(($(mono) + $1 * 1000000))
	shift
	while ! "$@"; do
		[ "$(mono)" -ge "$_end" ] && return 1
		sleep 0.002
	done
	return 0
}

# first_seen: the trace has its first-screen line.
first_seen() {
	[ "$(ulines first)" -ge 1 ]
}

# press: send the keys, one at a time, each once the last one's redraw
# is done; the send stamps in $B_DIR/sent.  $MISSED counts keys with no
# redraw (a key the console never read is sent again).
press() {
	set -- j j j j k k PageDown PageDown PageUp G g j Enter j j t t \
	    Escape 2 j PageDown g 5 PageDown j g 1 '?' Escape j
	_seq="$*"
	set -f		# "?" is a key here, not a pattern
	: >"$B_DIR/sent"
	MISSED=0
	_i=0
	while [ "$_i" -lt "$keys" ]; do
		[ $# -eq 0 ] && set -- $_seq
		_k=$1
		_i=$((_i + 1))
		mono >>"$B_DIR/sent"
		t send-keys -t b "$_k"
		if wait_until 3 drawn "$_i"; then
			shift
		elif [ "$(ulines key)" -lt "$_i" ]; then
			# Not read: forget its stamp, send it again.
			sed '$d' "$B_DIR/sent" >"$B_DIR/sent.new"
			mv "$B_DIR/sent.new" "$B_DIR/sent"
			_i=$((_i - 1))
			MISSED=$((MISSED + 1))
		else
			shift
			MISSED=$((MISSED + 1))
		fi
		if [ "$MISSED" -gt 20 ]; then
			echo "$0: over 20 keys without a redraw:" >&2
			t capture-pane -p -t b >&2
			exit 1
		fi
		if ! kill -0 "$PID" 2>/dev/null; then
			echo "$0: the console exited at key $_i ($_k):" >&2
			cat "$B_DIR/console.err" >&2
			exit 1
		fi
	done
	set +f
}

# latencies FROM: for each key, the time in microseconds from FROM (key:
# the console's read; sent: the send stamp) to the first draw after it.
latencies() {
	awk -v from="$1" '
	FNR == NR { sent[NR] = $1; next }
	$1 == "U" && $2 == "key" && NF == 3 { k++; at[k] = $3; open = 1 }
	$1 == "U" && $2 == "draw" && NF == 3 && open {
		print $3 - (from == "key" ? at[k] : sent[k])
		open = 0
	}' "$B_DIR/sent" "$B_DIR/trace"
}

# stop: quit (answering a confirmation if one comes), else end it by its
# pid: a console that quits with items in flight carries on as a
# headless engine, which would outlive the benchmark's database.
stop() {
	t send-keys -t b q
	wait_until 1 dead "$PID" && return 0
	t send-keys -t b y
	wait_until 2 dead "$PID" && return 0
	kill "$PID" 2>/dev/null || true
	wait_until 5 dead "$PID" && return 0
	kill -9 "$PID" 2>/dev/null || true
	t kill-session -t b >/dev/null 2>&1 || true
}

# dead PID: the process is gone (or a zombie: tmux reaps it).
dead() {
	! kill -0 "$1" 2>/dev/null ||
	    [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null |
	    cut -d' ' -f1)" = Z ]
}

# gen_foreach N: the path of a database holding one workflow, queued: a
# for-each of N {"run": ["sleep", "$FOREACH_SLEEP"]} items, 32 at a time,
# which the console's engine runs while the keys are pressed.
gen_foreach() {
	_db=$B_DIR/foreach-$1.db
	awk -v n="$1" 'BEGIN {
		printf "{\"items\": ["
		for (i = 1; i <= n; i++)
			printf "%s\"host-%05d\"", (i > 1 ? ", " : ""), i
		printf "]}\n"
	}' >"$B_DIR/input.json"
	echo '{"start": {"foreach": "{{input.items}}", "concurrency": 32,
	    "do": {"run": ["sleep", "'"${FOREACH_SLEEP:-0.2}"'"]}}}' \
	    >"$B_DIR/fe.json"
	"$SLUICE" init "$_db" >/dev/null 2>&1 || :	# before init: run made it
	"$SLUICE" --db "$_db" run "$B_DIR/fe.json" --input "$B_DIR/input.json" \
	    >/dev/null 2>&1 || { echo "$0: queueing the for-each failed" >&2;
	    exit 1; }
	echo "$_db"
}

# bench W COLSxROWS: one run; prints its line, labelled with $LABEL when
# set, and adds "LABEL W SIZE FIRST P99 RSS" to $B_DIR/figures.  With
# FOREACH set, W is the items of a for-each the console's engine runs
# during the presses.  With MEMBER set, the engine runs as the service
# account on its copy and the console as the member.
bench() {
	if [ -n "${FOREACH:-}" ]; then
		_src=$(gen_foreach "$1")
	else
		_src=$(gen "$1")
	fi
	_run=$B_DIR/run.db
	if [ -n "$member" ]; then
		svc_install "$_src"
		_run=$SVC_DB
	else
		cp "$_src" "$_run"
		rm -f "$_run-wal" "$_run-shm"
	fi
	_nsteps=$(sqlite3 -readonly "$_src" 'SELECT count(*) FROM workflow_steps')
	[ -z "$member" ] || svc_engine_start "$SLUICE"
	start "$2" "$_run"
	if ! wait_until 30 first_seen; then
		echo "$0: no \"U first\" line in the trace within 30 s" \
		    "(is $SLUICE a console that writes them?):" >&2
		t capture-pane -p -t b >&2
		cat "$B_DIR/console.err" >&2
		exit 1
	fi
	_first=$(awk 'NR == FNR { t0 = $1; next }
	    $1 == "U" && $2 == "first" {
		printf "%.1f", ($3 - t0) / 1000
		exit
	    }' "$B_DIR/t0" "$B_DIR/trace")
	# Let the start settle (the engine's recovery, the first refresh).
	sleep 1
	press
	_rss=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$PID/status")
	_what="$1 workflows ($_nsteps steps)"
	if [ -n "${FOREACH:-}" ]; then
		_left=$(sqlite3 "$_run" "SELECT count(*) FROM
		    workflow_steps WHERE item_index IS NOT NULL AND status
		    IN ('pending', 'ready', 'running')")
		_what="a for-each of $1 \"sleep ${FOREACH_SLEEP:-0.2}\" items"
		_what="$_what ($_left not ended after the keys)"
	fi
	[ -z "$member" ] || _what="$_what, a member's console (service mode)"
	[ -z "${HOST_PROCS:-}" ] || _what="$_what, $HOST_PROCS host processes"
	stop
	[ -z "$member" ] || svc_engine_stop
	_n=$(latencies key | wc -l)
	_p99=$(latencies key | pct 99)
	echo "sluice console${LABEL:+ ($LABEL)}: $_what, $2:" \
	    "first screen $_first ms; key to screen" \
	    "p50 $(latencies key | pct 50) ms" \
	    "p99 $_p99 ms" \
	    "($_n keys$([ "$MISSED" -eq 0 ] ||
	    echo ", $MISSED without a redraw"));" \
	    "send to screen p50 $(latencies sent | pct 50) ms" \
	    "p99 $(latencies sent | pct 99) ms; peak RSS $_rss KiB"
	echo "${LABEL:--} $1 $2 $_first $_p99 $_rss" >>"$B_DIR/figures"
}

# rounds W COLSxROWS: ROUNDS runs, each of $SLUICE_BEFORE first when set.
rounds() {
	_round=0
	while [ "$_round" -lt "$nrounds" ]; do
		_round=$((_round + 1))
		if [ -n "${SLUICE_BEFORE:-}" ]; then
			SLUICE=$SLUICE_BEFORE LABEL=before bench "$1" "$2"
			LABEL=after bench "$1" "$2"
		else
			bench "$1" "$2"
		fi
	done
}

# summary: per label and size, the median of the rounds and their
# spread; then after/before.
summary() {
	[ "$nrounds" -gt 1 ] || [ -n "${SLUICE_BEFORE:-}" ] || return 0
	awk -v n="$nrounds" '
	function med(key,	k, m, i, j, t, a) {
		m = cnt[key]
		for (i = 1; i <= m; i++)
			a[i] = val[key, i]
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		lo[key] = a[1]
		hi[key] = a[m]
		return (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2)
	}
	function add(key, v) { val[key, ++cnt[key]] = v }
	{
		run = $2 " " $3
		if (!(run in seen)) { seen[run] = 1; order[++nruns] = run }
		if (!(($1) in lab)) { lab[$1] = 1; labs[++nlabs] = $1 }
		add($1 " " run " f", $4)
		add($1 " " run " p", $5)
		add($1 " " run " r", $6)
	}
	END {
		for (i = 1; i <= nruns; i++) {
			split(order[i], wr, " ")
			for (j = 1; j <= nlabs; j++) {
				k = labs[j] " " order[i]
				f[j] = med(k " f"); p[j] = med(k " p")
				r[j] = med(k " r")
				printf "sluice console summary%s: %d rounds, " \
				    "%s workflows, %s: first screen %.1f ms " \
				    "[%.1f-%.1f]; key to screen p99 %.3f ms " \
				    "[%.3f-%.3f]; peak RSS %d KiB [%d-%d]\n",
				    (labs[j] == "-" ? "" : " (" labs[j] ")"),
				    cnt[k " f"], wr[1], wr[2], f[j],
				    lo[k " f"], hi[k " f"], p[j], lo[k " p"],
				    hi[k " p"], r[j], lo[k " r"], hi[k " r"]
			}
			if (nlabs == 2 && f[1] > 0 && p[1] > 0 && r[1] > 0)
				printf "sluice console after/before: %s " \
				    "workflows, %s: first screen %.2f; key " \
				    "to screen p99 %.2f; peak RSS %.2f\n",
				    wr[1], wr[2], f[2] / f[1], p[2] / p[1],
				    r[2] / r[1]
		}
	}' "$B_DIR/figures"
}

# IDLE: that many more processes on the host while the console runs
# (a busy production host), ended by pid at the end.
if [ "${IDLE:-0}" -ne 0 ]; then
	idle_start "$IDLE"
	trap cleanup EXIT
fi
[ -z "$member" ] || svc_accounts
nrounds=${ROUNDS:-$([ -n "${SLUICE_BEFORE:-}" ] && echo 3 || echo 1)}
if [ -n "${SLUICE_BEFORE:-}" ] && [ ! -x "$SLUICE_BEFORE" ]; then
	echo "$0: SLUICE_BEFORE is not a program" >&2
	exit 2
fi
: >"$B_DIR/figures"
FOREACH=
if [ "${1:-}" = foreach ]; then
	# foreach [N [COLSxROWS]]: the console over a running for-each.
	[ -z "$member" ] || { echo "$0: foreach with MEMBER=1 is not" \
	    "supported" >&2; exit 2; }
	FOREACH=1
	shift
	[ $# -ge 1 ] || set -- 10000
fi
case $# in
0)	for w in 100000 1000; do
		for s in 100x30 200x60; do
			rounds "$w" "$s"
		done
	done ;;
1)	for s in 100x30 200x60; do
		rounds "$1" "$s"
	done ;;
2)	rounds "$1" "$2" ;;
*)	echo "usage: $0 [WORKFLOWS [COLSxROWS]]" >&2; exit 2 ;;
esac
summary
