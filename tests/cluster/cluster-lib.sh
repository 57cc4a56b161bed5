#!/bin/sh
# tests/cluster/cluster-lib.sh: three engine nodes on one PostgreSQL of
# the test's own (tests/pg-lib.sh), sourced after it.  Each node N (1-3)
# has its own directory $T_DIR/nN, socket $T_DIR/nN.sock, log
# $T_DIR/nN.err and TCP forwarder to the primary (tests/cluster/forward
# beside $SLUICE, or $SLUICE_FORWARD: kill -STOP on $(fwd_pid N) is that
# node's partition).  Only what was
# started here is ended, by pid.
#
#   cl_setup [standby]  primary, database, forwarders, the three $NODE_DB_N;
#                       with standby, a synchronous standby too, which
#                       each $NODE_DB_N names before the node's forwarder
#                       with target_session_attrs=read-write: libpq
#                       passes over it while it is read-only, and finds
#                       it once promoted (a forwarder whose primary died
#                       ends the connection at startup, after which
#                       libpq tries no further host)
#   cl_start_nodes      node 1 leads ($epoch its epoch), 2 and 3 stand by
#                       (two checks)
#   standing_by N...    wait up to 10 s until each node N stands by
#   pg_is SQL WANT      the query's answer is WANT (wait_for pg_is ...)
#   node_start N        start node N's engine (a standby if another leads),
#                       named nN ($SLUICE_NODE)
#   node_pid N          its engine's pid
#   leader_wait MIN MS  wait up to MS for a leader with epoch >= MIN:
#                       prints "NODE EPOCH"
#   now_ms              the wall clock in ms
#   step_of WF NAME     the id of step NAME of run WF (the newest)
#   cl_member USER DB N ARGS...  sluice as account USER on node N's socket
#   cl_account PREFIX   a member account ($MEMBER), removed at exit
#   cl_open_sock N GROUP  node N's socket, GROUP's to connect to
#   cl_pings N UNTIL_MS   node N's socket pinged every 100 ms until then:
#                       "ANSWERED SENT SLOWEST_MS"
#   cl_cut N [MS]       cut node N off (its forwarder stopped) at $t0 and
#                       ping its socket until MS (4000) after (cl_pings, into
#                       $T_DIR/pings) while a standby takes over:
#                       $cut_led is leader_wait's line ("" if none did in
#                       10 s), $t1 when, $leader and $epoch its
#   cl_done             done_testing, after what the nodes said when a
#                       check failed

FWD=${SLUICE_FORWARD:-"$(dirname "$SLUICE")/tests/cluster/forward"}
[ -x "$FWD" ] || skip_all "no tests/cluster/forward built"
CL_PIDS=""

now_ms() {
	date +%s%3N
}

# cl_sluice N ARGS...: a command on node N (its socket, its database,
# its name nN).
cl_sluice() {
	_n=$1; shift
	SLUICE_NODE=n$_n SLUICE_SOCKET="$T_DIR/n$_n.sock" "$SLUICE" \
	    --db "$(eval echo "\$NODE_DB_$_n")" "$@"
}

# cl_member USER DB N ARGS...: sluice as the account USER (a member of
# the team, made by the test) on node N's socket, naming database DB;
# $RC, $OUT, $ERR.
cl_member() {
	_u=$1; _db=$2; _n=$3; shift 3
	setpriv --reuid="$_u" --regid="$_u" --init-groups \
	    env SLUICE_SOCKET="$T_DIR/n$_n.sock" HOME="$T_DIR" \
	    "$SLUICE" --db "$_db" "$@" \
	    >"$T_DIR/m.out" 2>"$T_DIR/m.err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/m.out")
	ERR=$(cat "$T_DIR/m.err")
}

# cl_open_sock N GROUP: node N's socket, once there, GROUP's to connect
# to.
cl_open_sock() {
	_i=0
	while [ ! -S "$T_DIR/n$1.sock" ] && [ $_i -lt 200 ]; do
		sleep 0.05; _i=$((_i + 1))
	done
	chgrp "$2" "$T_DIR/n$1.sock" && chmod 0660 "$T_DIR/n$1.sock"
}

cl_setup() {
	pg_primary || { echo "Bail out! PostgreSQL did not start"; exit 1; }
	_also=""
	if [ "${1:-}" = standby ]; then
		pg_standby ||
		    { echo "Bail out! the standby did not start"; exit 1; }
		_also="$(pg_port standby),"
	fi
	"$SLUICE" init "$PG_DB" >/dev/null ||
	    { echo "Bail out! sluice init $PG_DB failed"; exit 1; }
	for _n in 1 2 3; do
		mkdir -p "$T_DIR/n$_n"
		"$FWD" "$T_DIR/f$_n.port" "$(pg_port primary)" &
		eval "FWD_PID_$_n=$!"
		CL_PIDS="$CL_PIDS $!"
		_i=0
		while [ ! -s "$T_DIR/f$_n.port" ] && [ $_i -lt 100 ]; do
			sleep 0.05; _i=$((_i + 1))
		done
		if [ -n "$_also" ]; then
			eval "NODE_DB_$_n=\"postgresql:host=127.0.0.1,127.0.0.1 port=$_also$(cat "$T_DIR/f$_n.port") dbname=sluice user=sluice_owner target_session_attrs=read-write connect_timeout=2\""
		else
			eval "NODE_DB_$_n=\"postgresql:host=127.0.0.1 port=$(cat "$T_DIR/f$_n.port") dbname=sluice user=sluice_owner\""
		fi
	done
}

fwd_pid() {
	eval echo "\$FWD_PID_$1"
}

node_pid() {
	eval echo "\${NODE_PID_$1:-}"
}

node_start() {
	# A socket a killed node left would pass for the new one's (its
	# group set on the old file, then replaced): only what it makes.
	rm -f "$T_DIR/n$1.sock"
	(cd "$T_DIR/n$1" && SLUICE_SOCKET="$T_DIR/n$1.sock" \
	    SLUICE_NODE="n$1" exec "$SLUICE" \
	    --db "$(eval echo "\$NODE_DB_$1")" engine 2>>"$T_DIR/n$1.err") &
	eval "NODE_PID_$1=$!"
	CL_PIDS="$CL_PIDS $!"
}

# stands_by N...: every node N has said it stands by.
stands_by() {
	for _n in "$@"; do
		grep -q "standing by" "$T_DIR/n$_n.err" 2>/dev/null || return 1
	done
}

# standing_by N...: every node N has said it stands by (waited for up to
# 10 s).
standing_by() {
	wait_for stands_by "$@"
}

# pg_is SQL WANT: the query's answer is WANT (for wait_for).
pg_is() {
	[ "$(pg_sql "$1")" = "$2" ]
}

# cl_start_nodes: node 1 leads, with epoch $epoch; 2 and 3 stand by.
cl_start_nodes() {
	node_start 1
	set -- $(leader_wait 1 20000)
	is "${1:-}" 1 "the first node leads"
	epoch=${2:-0}
	node_start 2
	node_start 3
	standing_by 2 3
	ok $? "the other two stand by"
}

# node_epoch N: the epoch node N last said it leads with, or 0.
node_epoch() {
	sed -n 's/.*leading, epoch \([0-9]*\),.*/\1/p' "$T_DIR/n$1.err" \
	    2>/dev/null | tail -1 | grep . || echo 0
}

leader_wait() {
	_end=$(( $(now_ms) + $2 ))
	while :; do
		for _n in 1 2 3; do
			_e=$(node_epoch "$_n")
			if [ "$_e" -ge "$1" ] && kill -0 "$(node_pid "$_n")" \
			    2>/dev/null; then
				echo "$_n $_e"
				return 0
			fi
		done
		[ "$(now_ms)" -lt "$_end" ] || return 1
		sleep 0.01
	done
}

# step_of WF NAME: the id of step NAME of run WF (the newest).
step_of() {
	pg_sql "SELECT id FROM workflow_steps WHERE workflow_id = $1
	    AND name = '$2' ORDER BY id DESC LIMIT 1"
}

# gone PID: the process has ended (or is a zombie not yet reaped).
gone() {
	[ ! -e "/proc/$1/stat" ] && return 0
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) in
	Z*|X*|"") return 0 ;;
	esac
	return 1
}

# cl_pings N UNTIL_MS: ping node N's socket every 100 ms until the wall
# clock reads UNTIL_MS (whenever python starts), each ping given 1 s;
# prints the pings answered, the pings sent and the slowest answer in ms.
cl_pings() {
	_py=$(command -v python3) || { echo "0 0 no-python3"; return 1; }
	"$_py" - "$T_DIR/n$1.sock" "$2" <<'PY'
import socket, sys, time
answered = sent = worst = 0
end = int(sys.argv[2]) / 1000
while time.time() < end:
    sent += 1
    t = time.monotonic()
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(1)
        s.connect(sys.argv[1])
        s.sendall(b'{"command":"ping"}\n')
        if b'"code"' in s.makefile("rb").readline():
            answered += 1
            worst = max(worst, int((time.monotonic() - t) * 1000))
        s.close()
    except OSError:
        pass
    time.sleep(0.1)
print(answered, sent, worst)
PY
}

cl_cut() {
	kill -STOP "$(fwd_pid "$1")"
	t0=$(now_ms)
	cl_pings "$1" $((t0 + ${2:-4000})) >"$T_DIR/pings" &
	_pp=$!
	cut_led=$(leader_wait $((epoch + 1)) 10000)
	t1=$(now_ms)
	[ -n "$cut_led" ] && leader=${cut_led% *} epoch=${cut_led#* }
	wait "$_pp"
}

cl_done() {
	[ "$T_FAILED" -eq 0 ] || for _n in 1 2 3; do
		echo "# node $_n:"
		sed 's/^/#   /' "$T_DIR/n$_n.err" 2>/dev/null
	done
	done_testing
}

cl_cleanup() {
	for _p in $CL_PIDS; do
		# Only a process still ours (our child): a node killed in an
		# earlier round is gone, and its pid may be another test's
		# process by now (200 kill rounds go through many pids).
		[ "$(sed -n 's/.*) [A-Za-z] \([0-9]*\) .*/\1/p' \
		    "/proc/$_p/stat" 2>/dev/null)" = "$$" ] || continue
		kill -CONT "$_p" 2>/dev/null
		kill -9 "$_p" 2>/dev/null
	done
	pg_cleanup
}
trap 'cl_cleanup' EXIT

# cl_account PREFIX: a member account of the test's own (no PostgreSQL
# login), named PREFIX and our pid, in $MEMBER; removed at exit.  Skips
# the test, saying why, where accounts cannot be made.
cl_account() {
	command -v useradd >/dev/null 2>&1 &&
	    command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] ||
	    skip_all "needs root, useradd and setpriv for a member's account"
	MEMBER="$1$$"
	useradd -M -U -s /bin/sh "$MEMBER" || skip_all "useradd $MEMBER failed"
	trap 'cl_cleanup; userdel "$MEMBER" 2>/dev/null;
	    groupdel "$MEMBER" 2>/dev/null' EXIT
}
