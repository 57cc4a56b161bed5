#!/bin/sh
# tests/cli/service-limits.sh: no team member can take the service
# engine's socket from the others, tried as real, separate Unix accounts.
# A member gets 16 connections and the 17th is refused with the reason,
# while another member is still served; with 64 held by four members a
# fifth is refused, but root and the service account each still get one;
# a connection that asks nothing is closed after the idle limit, saying
# so, and a subscribed one stays; a member that sends and never reads its
# answers is dropped once they pile up, and the others are served on; a
# lock file an older release left readable to members is made private.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/clock-lib.sh"

. "$TOP_SRCDIR/tests/service-lib.sh"

need_test_clock		# for a short idle limit: $SLUICE_TEST_SOCKET_IDLE_MS

svc_setup sk

svc_python

cat >"$T_DIR/client.py" <<'EOF2'
import os, socket, sys, time

path, mode = sys.argv[1], sys.argv[2]

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    return s, s.makefile("rb")

def ask(s, f, line):
    s.sendall(line.encode() + b"\n")
    return f.readline().decode().rstrip("\n")

def say(text):
    print(text, flush=True)

if mode == "hold":
    # Hold N connections, each answering a ping, until killed.
    held = [conn() for i in range(int(sys.argv[3]))]
    codes = set(ask(s, f, '{"command":"ping"}')[:9] for s, f in held)
    say("held %d %s" % (len(held), " ".join(sorted(codes))))
    time.sleep(120)
elif mode == "one":
    # One more connection: the engine's first line, to a ping or not
    # (a refusal may come before the ping could be sent).
    s, f = conn()
    try:
        s.sendall(b'{"command":"ping"}\n')
    except OSError:
        pass
    try:
        say(f.readline().decode().rstrip("\n"))
    except OSError as e:
        say("error " + str(e))
elif mode == "idle":
    # Ask nothing: the engine's line, then whether it closed.
    s, f = conn()
    t = time.time()
    say(f.readline().decode().rstrip("\n"))
    say("closed" if f.readline() == b"" else "open")
    say("after %d s" % int(time.time() - t))
elif mode == "subscribed":
    # Subscribe, sit past the idle limit, then ask.
    s, f = conn()
    say(ask(s, f, '{"command":"subscribe"}'))
    time.sleep(float(sys.argv[3]))
    s.sendall(b'{"command":"ping"}\n')
    line = f.readline().decode()
    while line.startswith('{"event"'):
        line = f.readline().decode()
    say(line.rstrip("\n")[:9])
elif mode == "flood":
    # Send pings and never read an answer, until the engine drops us.
    s, f = conn()
    chunk = b'{"command":"ping"}\n' * 2048
    sent = 0
    try:
        while sent < 512 * 1024 * 1024:
            s.sendall(chunk)
            sent += len(chunk)
        say("not dropped")
    except socket.timeout:
        say("stalled, not dropped")
    except OSError:
        say("dropped")
EOF2
chmod 0644 "$T_DIR/client.py"
sock="$SLUICE_DB.sock"

# client USER MODE ARGS...: the raw client run as USER.
client() {
	_u=$1
	shift
	as "$_u" "$PY" "$T_DIR/client.py" "$sock" "$@"
}

# client_bg USER OUT MODE ARGS...: the raw client as USER in the
# background, its output in OUT; $! is the client itself, for kill.
client_bg() {
	_u=$1
	_o=$2
	shift 2
	setpriv --reuid="$_u" --regid="$(id -g "$_u")" --init-groups \
	    "$PY" "$T_DIR/client.py" "$sock" "$@" >"$_o" 2>&1 &
}

# hold USER N: USER holds N connections in the background ($HELD: pids).
hold() {
	client_bg "$1" "$T_DIR/hold.$1" hold "$2"
	HELD="$HELD $!"
	ENGINES="$ENGINES $!"
	wait_for grep -q '^held' "$T_DIR/hold.$1"
}

# let_go: end every holder started by hold.
let_go() {
	for p in $HELD; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	HELD=""
}

HELD=""
export SLUICE_TEST_SOCKET_IDLE_MS=3000
svc_engine
ok $? "the engine runs as the service account and listens"

# --- per user ---------------------------------------------------------------

hold "$alice" 16
is "$(cat "$T_DIR/hold.$alice")" 'held 16 {"code":0' \
    "a member holds 16 connections, each served"
is "$(client "$alice" one)" \
    '{"code":1,"message":"you have 16 connections to the engine, the most one user may have; close one and try again"}' \
    "the member's 17th is refused with the reason"
as "$alice" "$SLUICE" cancel 999 >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
is "$?:$(cat "$T_DIR/err")" \
    "1:sluice: you have 16 connections to the engine, the most one user may have; close one and try again" \
    "sluice itself, refused so, says why and exits 1"
like "$(client "$bob" one)" '{"code":0,' "another member is still served"

# --- all clients ------------------------------------------------------------

hold "$bob" 16
svc_member skc
carol=$member
svc_member skd
dave=$member
svc_member skf
fred=$member
hold "$carol" 16
hold "$dave" 16
is "$(cat "$T_DIR/hold.$carol") $(cat "$T_DIR/hold.$dave")" \
    'held 16 {"code":0 held 16 {"code":0' "four members hold 64 connections"
is "$(client "$fred" one)" \
    '{"code":1,"message":"the engine has too many clients (64); try again"}' \
    "a fifth member is refused with the reason"
like "$(client "$svc" one)" '{"code":0,' \
    "the service account still gets a connection"
like "$("$PY" "$T_DIR/client.py" "$sock" one)" '{"code":0,' \
    "and root does"
let_go
like "$(client "$fred" one)" '{"code":0,' \
    "once they let go, the fifth member is served"

# --- idle -------------------------------------------------------------------

client_bg "$alice" "$T_DIR/sub.out" subscribed 5
spid=$!
ENGINES="$ENGINES $spid"
client "$bob" idle >"$T_DIR/idle.out" 2>&1
is "$(sed -n 1,2p "$T_DIR/idle.out")" \
    '{"code":1,"message":"closed: no request for 3 s (the limit for a connection that is not subscribed)"}
closed' "a connection that asks nothing is closed after the idle limit, saying why"
case $(sed -n 3p "$T_DIR/idle.out") in
"after "[2-9]" s")	ok 0 "not before the limit" ;;
*)	ok 1 "not before the limit: $(sed -n 3p "$T_DIR/idle.out")" ;;
esac
wait "$spid"
is "$(sed -n 2p "$T_DIR/sub.out")" '{"code":0' \
    "a subscribed connection outlives the idle limit and is served"

# --- a client that does not read ---------------------------------------------

client_bg "$alice" "$T_DIR/flood.out" flood
fpid=$!
ENGINES="$ENGINES $fpid"
like "$(client "$bob" one)" '{"code":0,' "a member is served while another floods"
wait "$fpid"
is "$(cat "$T_DIR/flood.out")" "dropped" \
    "a member that sends and never reads its answers is dropped"
like "$(client "$alice" one)" '{"code":0,' \
    "and served again when it comes back"

kill -TERM "$EPID"
wait "$EPID"
is "$?" 0 "the engine stops cleanly"

# A lock file an older release made group-readable is the service's
# alone once an engine starts.
chmod 0640 "$SLUICE_DB.lock"
svc_engine
is "$(stat -c '%a' "$SLUICE_DB.lock")" 600 \
    "an engine keeps an older lock file to the service account"
kill -TERM "$EPID"
wait "$EPID"

done_testing
