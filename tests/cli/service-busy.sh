#!/bin/sh
# tests/cli/service-busy.sh: a busy database never makes the service
# engine exit.  Root holds a shared lock on the WAL index's write byte
# (DB-shm byte 120, what a plain reader may hold) for 30 s: the engine
# waits, says once on standard error what it waits for and who holds it,
# answers pings with it (sluice status shows it), and a member's approval
# sent meanwhile is answered and applied once the lock goes.  An engine
# started while such a lock is held waits for it instead of exiting with
# "locking protocol".  Real, separate Unix accounts, as in service.sh.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/service-lib.sh"

svc_setup sb

svc_python

cat >"$T_DIR/lock.py" <<'EOF2'
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.lockf(fd, fcntl.LOCK_SH, 1, 120)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
print("released %d" % int(time.time() * 1000), flush=True)
EOF2
cat >"$T_DIR/ask.py" <<'EOF2'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(120)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
line = s.makefile("rb").readline().decode().rstrip("\n")
print("%d %s" % (int(time.time() * 1000), line), flush=True)
EOF2
chmod 0644 "$T_DIR"/*.py
cat >"$flows/gate.json" <<'EOF2'
{"start": {"gate": {"message": "ship?"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF2
chmod 0644 "$flows/gate.json"
sock="$SLUICE_DB.sock"

# locked_for SECONDS: root holds the lock in the background ($LPID).
locked_for() {
	"$PY" "$T_DIR/lock.py" "$SLUICE_DB-shm" "$1" >"$T_DIR/lock.out" 2>&1 &
	LPID=$!
	ENGINES="$ENGINES $LPID"
	wait_for grep -q locked "$T_DIR/lock.out"
}

svc_engine
ok $? "the engine runs as the service account"
as "$alice" "$SLUICE" run "$flows/gate.json" >"$T_DIR/out" 2>&1
wf=$(cat "$T_DIR/out")
wait_for wf_is "$wf" running
step=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $wf AND
    name = 'start'")
# step_is STATUS: the gate's row is STATUS.
step_is() {
	[ "$(q "SELECT status FROM workflow_steps WHERE id = $step")" = "$1" ]
}
wait_for step_is waiting

# --- a lock held for 30 s while commands come -------------------------------

locked_for 30
# A run makes the engine write, so it meets the lock and waits.
as "$alice" "$PY" "$T_DIR/ask.py" "$sock" \
    '{"command":"start","args":{"name":"busy","flow":{"start":{"tool":"noop"}},"input":{}}}' \
    >"$T_DIR/start.out" 2>&1 &
apid=$!
ENGINES="$ENGINES $apid"
sleep 7		# past the busy timeout (5 s): the engine says it waits
as "$bob" "$PY" "$T_DIR/ask.py" "$sock" \
    '{"command":"approve","step_id":'"$step"',"args":{"comment":"ok"}}' \
    >"$T_DIR/approve.out" 2>&1 &
bpid=$!
ENGINES="$ENGINES $bpid"
out=$(as "$alice" "$PY" "$T_DIR/ask.py" "$sock" '{"command":"ping"}')
like "$out" "\"waiting\":\"database $SLUICE_DB is locked by another process: pid $LPID (python3, uid 0) holds a shared lock on $SLUICE_DB-shm byte 120\"" \
    "a ping meanwhile is answered, naming what the engine waits for and who holds it"
as "$alice" "$SLUICE" status >"$T_DIR/status.out" 2>&1
is "$?" 1 "a member's status finds a problem"
like "$(cat "$T_DIR/status.out")" "the engine has waited since " \
    "status says the engine waits"
like "$(cat "$T_DIR/status.out")" "pid $LPID (python3, uid 0) holds a shared lock" \
    "and who holds the lock"
grep -c 'sluice: engine: waiting: ' "$T_DIR/engine.err" >"$T_DIR/n"
is "$(cat "$T_DIR/n")" 1 "the engine says once that it waits"
kill -0 "$EPID"
ok $? "the engine is still running"

wait "$LPID"
released=$(sed -n 's/^released //p' "$T_DIR/lock.out")
wait "$apid"
wait "$bpid"
read -r at line <"$T_DIR/approve.out"
like "$line" '{"code":0,' "the approval sent meanwhile is answered"
[ "$at" -ge "$released" ]
ok $? "after the lock went"
read -r at line <"$T_DIR/start.out"
like "$line" '{"code":0,' "so is the run started before it"
wait_for test "$(q "SELECT status FROM workflows WHERE name = 'busy'")" = completed
ok $? "which runs"
wait_for step_is done
ok $? "the approval is applied"
wait_for wf_is "$wf" completed
ok $? "and the run goes on to its end"
like "$(cat "$T_DIR/engine.err")" "sluice: engine: the database is free again after " \
    "the engine says when it carries on"
kill -0 "$EPID"
ok $? "the engine is still running"

# --- an engine started while the lock is held --------------------------------

kill -9 "$EPID"
wait "$EPID" 2>/dev/null
locked_for 15
svc_engine
sleep 13	# past SQLite's own retries (about 10 s): "locking protocol"
kill -0 "$EPID"
ok $? "an engine started under the lock waits instead of exiting"
like "$(cat "$T_DIR/engine.err")" "sluice: init: waiting: database $SLUICE_DB is locked by another process: pid $LPID" \
    "saying what it waits for (sluice init, which the unit runs first)"
wait "$LPID"
# pings: a ping answered.
pings() {
	as "$alice" "$PY" "$T_DIR/ask.py" "$sock" '{"command":"ping"}' |
	    grep -q '{"code":0,'
}
wait_for pings
ok $? "and serves once the lock goes"
unlike "$(cat "$T_DIR/engine.err")" "locking protocol" "no \"locking protocol\""

kill -TERM "$EPID"
wait "$EPID"
is "$?" 0 "the engine stops cleanly"

done_testing
