#!/bin/sh
# tests/cli/sdnotify.sh: "sluice engine" under a service manager (systemd's
# Type=notify).  A datagram socket of the test's own stands for systemd:
# READY=1 comes once DB.sock answers commands, never before; RELOADING=1
# then READY=1 around a SIGHUP; STOPPING=1 on SIGTERM; an abstract socket
# ("@name") works too; NOTIFY_SOCKET never reaches a step; a name that
# cannot be a socket is warned about and the engine runs.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "needs python3 for a socket"

# listener.py ADDR LOG: receive state messages on ADDR (a path, or @name
# for an abstract socket) and log each; on the first READY=1, ask DB.sock
# at once (ping) and log the answer, then carry on until STOPPING=1.
cat >"$T_DIR/listener.py" <<'EOF2'
import socket, sys

addr, log, dbsock = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
s.settimeout(60)
out = open(log, "a", buffering=1)
out.write("listening\n")
ready = False
while True:
    msg = s.recv(4096).decode()
    for line in msg.split("\n"):
        out.write(line.split("=")[0] + "=" if line.startswith("MONOTONIC_USEC=")
                  else line)
        out.write("\n")
    if msg == "READY=1" and not ready:
        ready = True
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(10)
        try:
            c.connect(dbsock)
            c.sendall(b'{"command":"ping"}\n')
            out.write("ping: " + c.makefile("rb").readline().decode()[:9] + "\n")
        except OSError as e:
            out.write("ping failed: %s\n" % e)
    if msg == "STOPPING=1":
        break
EOF2

# listen ADDR: start the listener, logging to $T_DIR/notify.log.
listen() {
	rm -f "$T_DIR/notify.log"
	python3 "$T_DIR/listener.py" "$1" "$T_DIR/notify.log" \
	    "$SLUICE_DB.sock" &
	LPID=$!
	wait_for file_has "$T_DIR/notify.log" listening
}
# readies N: the log has at least N READY=1 lines.
readies() {
	[ "$(grep -c READY=1 "$T_DIR/notify.log")" -ge "$1" ]
}
# with_notify ADDR CMD...: CMD with NOTIFY_SOCKET=ADDR in its environment.
with_notify() {
	_a=$1
	shift
	export NOTIFY_SOCKET="$_a"
	"$@"
	_rc=$?
	unset NOTIFY_SOCKET
	return $_rc
}
log_is() {
	is "$(grep -v listening "$T_DIR/notify.log")" "$1" "$2"
}

cat >"$T_DIR/tools.json" <<EOF2
{"env": {"run": ["sh", "-c", "env > $T_DIR/step-env"]}}
EOF2
cat >"$T_DIR/env.json" <<'EOF2'
{"start": {"tool": "env"}}
EOF2
export SLUICE_TOOLS="$T_DIR/tools.json"

# --- a path ------------------------------------------------------------------

listen "$T_DIR/notify.sock"
with_notify "$T_DIR/notify.sock" engine_start
ok $? "the engine starts with NOTIFY_SOCKET set"
wait_for file_has "$T_DIR/notify.log" "ping:"
log_is "READY=1
ping: {\"code\":0" "READY=1 once DB.sock answers: a ping right after it succeeds"

run_sluice run "$T_DIR/env.json"
expect_rc 0 "a workflow runs"
wf=$(new_id)
wait_for wf_ended "$wf"
q_is "SELECT status FROM workflows WHERE id = $wf" completed "its step ran"
[ -s "$T_DIR/step-env" ] && grep -q '^SLUICE_DB=' "$T_DIR/step-env"
ok $? "the step wrote its environment"
! grep -q NOTIFY_SOCKET "$T_DIR/step-env"
ok $? "the step's environment has no NOTIFY_SOCKET"

kill -HUP "$EPID"
wait_for file_has "$T_DIR/engine.err" "reloaded the tools catalog"
wait_for readies 2
log_is "READY=1
ping: {\"code\":0
RELOADING=1
MONOTONIC_USEC=
READY=1" "SIGHUP: RELOADING=1 with the monotonic time, then READY=1"

echo '{"env": ' >"$T_DIR/tools.json"
kill -HUP "$EPID"
wait_for file_has "$T_DIR/engine.err" "reload refused"
wait_for readies 3
is "$(grep -c RELOADING=1 "$T_DIR/notify.log")" 2 \
    "a refused reload says RELOADING=1 too"
is "$(tail -n 1 "$T_DIR/notify.log")" "READY=1" \
    "and READY=1 after it: the engine runs on what it had"

engine_stop
is "$ERC" 0 "SIGTERM: the engine exits 0"
wait "$LPID"
is "$(tail -n 1 "$T_DIR/notify.log")" "STOPPING=1" "SIGTERM: STOPPING=1"

# --- an abstract socket --------------------------------------------------------

printf '{"env": {"run": ["true"]}}\n' >"$T_DIR/tools.json"
name="@sluice-test-$$-$(date +%s)"
listen "$name"
with_notify "$name" engine_start
wait_for file_has "$T_DIR/notify.log" "ping:"
log_is "READY=1
ping: {\"code\":0" "an abstract socket (@name) gets READY=1"
engine_stop
wait "$LPID"
is "$(tail -n 1 "$T_DIR/notify.log")" "STOPPING=1" \
    "and STOPPING=1 on SIGTERM"

# --- --drain: STOPPING=1 when it is done ----------------------------------------

listen "$T_DIR/notify.sock2"
with_notify "$T_DIR/notify.sock2" engine_drain
is "$ERC" 0 "--drain exits 0 with nothing to do"
wait "$LPID"
is "$(grep -v '^ping' "$T_DIR/notify.log" | grep -v listening)" "READY=1
STOPPING=1" "--drain: READY=1, then STOPPING=1 when it is done"

# --- nobody to tell --------------------------------------------------------------

with_notify not-a-socket engine_start
ok $? "a NOTIFY_SOCKET that is no socket's name does not stop the engine"
like "$(cat "$T_DIR/engine.err")" "NOTIFY_SOCKET is not a socket's name" \
    "it says so"
engine_stop
is "$ERC" 0 "and it stops cleanly"

done_testing
