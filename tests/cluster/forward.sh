#!/bin/sh
# forward.sh: tests/cluster/forward, the cluster tests' TCP forwarder,
# against a real echo server on 127.0.0.1: bytes go both ways unchanged,
# several connections at once, an end's close reaches the other, and a
# stopped forwarder (SIGSTOP, the tests' partition) relays nothing and
# refuses nothing until SIGCONT heals it.
. "$TOP_SRCDIR/tests/lib.sh"

FWD="$(dirname "$SLUICE")/tests/cluster/forward"
[ -x "$FWD" ] || skip_all "no tests/cluster/forward built"
command -v python3 >/dev/null 2>&1 ||
    skip_all "no python3 for the echo server on 127.0.0.1"

# An echo server on a spare port, written to $T_DIR/echo.port.
cat >"$T_DIR/echo.py" <<'PY'
import socket, sys, threading
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
def serve(c):
    while True:
        b = c.recv(65536)
        if not b:
            break
        c.sendall(b)
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
# A client: send argv[2] (or a file's bytes with @path), half-close, print
# what came back; with a timeout in seconds as argv[3].
cat >"$T_DIR/client.py" <<'PY'
import socket, sys
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
data = open(sys.argv[2][1:], "rb").read() if sys.argv[2][0] == "@" \
    else sys.argv[2].encode()
c.settimeout(float(sys.argv[3]) if len(sys.argv) > 3 else 10)
try:
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    out = b""
    while True:
        b = c.recv(65536)
        if not b:
            break
        out += b
    sys.stdout.buffer.write(out)
except socket.timeout:
    sys.stdout.write("TIMEOUT")
PY

python3 "$T_DIR/echo.py" "$T_DIR/echo.port" &
echo_pid=$!
fwd_pid=
cleanup() {
	[ -n "$fwd_pid" ] && kill -CONT "$fwd_pid" 2>/dev/null
	[ -n "$fwd_pid" ] && kill "$fwd_pid" 2>/dev/null
	kill "$echo_pid" 2>/dev/null
	rm -rf "$T_DIR"
}
trap cleanup EXIT
"$FWD" >/dev/null 2>"$T_DIR/usage"
is "$?" 2 "no arguments: usage, exit 2"
like "$(cat "$T_DIR/usage")" "usage: forward PORTFILE TARGETPORT" "the usage line"

i=0
while [ ! -s "$T_DIR/echo.port" ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
echo_port=$(cat "$T_DIR/echo.port")
"$FWD" "$T_DIR/fwd.port" "$echo_port" &
fwd_pid=$!
i=0
while [ ! -s "$T_DIR/fwd.port" ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
port=$(cat "$T_DIR/fwd.port")
[ -n "$port" ] && [ "$port" != "$echo_port" ]
ok $? "the forwarder listens on a port of its own ($port)"

got=$(python3 "$T_DIR/client.py" "$port" "hello, world")
is "$got" "hello, world" "bytes go there and back unchanged"

head -c 1000000 /dev/urandom >"$T_DIR/big"
python3 "$T_DIR/client.py" "$port" "@$T_DIR/big" >"$T_DIR/big.back"
cmp -s "$T_DIR/big" "$T_DIR/big.back"
ok $? "a megabyte of random bytes comes back the same"

for n in 1 2 3 4 5 6 7 8; do
	python3 "$T_DIR/client.py" "$port" "conn $n" >"$T_DIR/many.$n" &
done
i=0
while [ $i -lt 50 ]; do
	all=1
	for n in 1 2 3 4 5 6 7 8; do
		[ "$(cat "$T_DIR/many.$n")" = "conn $n" ] || all=0
	done
	[ $all = 1 ] && break
	sleep 0.1; i=$((i + 1))
done
is "$all" 1 "eight connections at once, each its own bytes"

# The partition: stopped, it relays nothing and refuses nothing.
kill -STOP "$fwd_pid"
got=$(python3 "$T_DIR/client.py" "$port" "cut off" 1)
is "$got" "TIMEOUT" "stopped: a client hears nothing (no refusal, no answer)"
python3 "$T_DIR/client.py" "$port" "after the cut" 10 >"$T_DIR/heal" &
cl=$!
sleep 0.5
kill -CONT "$fwd_pid"
wait "$cl"
is "$(cat "$T_DIR/heal")" "after the cut" "continued: what waited goes through"
got=$(python3 "$T_DIR/client.py" "$port" "healed")
is "$got" "healed" "and new connections work again"

kill "$fwd_pid"
wait "$fwd_pid" 2>/dev/null
fwd_pid=
done_testing
