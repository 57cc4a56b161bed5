#!/bin/sh
# tests/cli/socket.sh: the engine's socket as a client that is not sluice
# sees it: one JSON line each way; ping names the caller from the kernel
# whatever the request says; bad lines get a one-line refusal and the
# connection stays usable; a request over the limit is refused and the
# connection closed; past 16 connections of one user the next is told
# why (tests/cli/service-limits.sh tries the limits with real accounts); a
# subscriber hears "changed" after a commit; a client that never reads
# does not stop the engine answering others.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "needs python3 for a raw client"

cat >"$T_DIR/client.py" <<'EOF2'
import json, socket, sys, time

path, mode = sys.argv[1], sys.argv[2]

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s, s.makefile("rb")

def ask(s, f, line):
    s.sendall(line.encode() + b"\n")
    return f.readline().decode().rstrip("\n")

if mode == "lines":
    s, f = conn()
    for line in sys.argv[3:]:
        print(ask(s, f, line))
elif mode == "big":
    s, f = conn()
    try:
        s.sendall(b"{" + b" " * (5 * 1024 * 1024))
    except OSError:
        pass
    print(f.readline().decode().rstrip("\n"))
    try:
        rest = f.readline()
    except OSError:
        rest = b""        # reset: closed with our bytes unread
    print("closed" if rest == b"" else "open")
elif mode == "many":
    held = []
    for i in range(16):
        held.append(conn())
    # Each of the 16 is served: one ping on the last proves it.
    print(ask(held[-1][0], held[-1][1], '{"command":"ping"}')[:9])
    s, f = conn()
    print(f.readline().decode().rstrip("\n"))
elif mode == "subscribe":
    s, f = conn()
    print(ask(s, f, '{"command":"subscribe"}'))
    sys.stdout.flush()
    # The test starts a run now; the engine commits and says so.
    print(f.readline().decode().rstrip("\n"))
elif mode == "deaf":
    # Subscribe, never read, and let many commits pile up.
    s, f = conn()
    s.sendall(b'{"command":"subscribe"}\n')
    print("deaf", flush=True)
    time.sleep(30)
EOF2

engine_start
ok $? "an engine runs"
sock="$SLUICE_DB.sock"
me=$(id -un)

out=$(python3 "$T_DIR/client.py" "$sock" lines \
    '{"command":"ping","uid":0,"user":"mallory","tty":"x","host":"y"}')
json_query "$out" "SELECT json_extract(j, '$.code') || '|' ||
    json_extract(j, '$.pid') || '|' || json_extract(j, '$.uid') || '|' ||
    json_extract(j, '$.user') FROM d" >"$T_DIR/ping"
is "$(cat "$T_DIR/ping")" "0|$EPID|$(id -u)|$me" \
    "ping: the engine's pid, and the caller as the kernel says, not as it says"

out=$(python3 "$T_DIR/client.py" "$sock" lines 'not json' '[1]' \
    '{"command":5}' '{"command":"cancel","workflow_id":-1}' \
    '{"command":"cancel","workflow_id":1.5}' \
    '{"command":"approve","step_id":1,"args":"x"}' \
    '{"command":"frobnicate"}' '{"command":"cancel","workflow_id":999}' \
    '{"command":"ping"}')
is "$out" '{"code":2,"message":"request is not a JSON object"}
{"code":2,"message":"request is not a JSON object"}
{"code":2,"message":"request: $.command is not a string"}
{"code":2,"message":"request: an id is not a positive integer"}
{"code":2,"message":"request: an id is not a positive integer"}
{"code":2,"message":"request: $.args is not an object"}
{"code":1,"message":"unknown command \"frobnicate\""}
{"code":3,"message":"no workflow 999","workflow_id":999}'"
$(printf '%s\n' "$out" | tail -n 1)" \
    "bad requests get one refusal line each and the connection goes on"
like "$(printf '%s\n' "$out" | tail -n 1)" '"code":0' \
    "a ping after them is answered"
q_is "SELECT count(*) FROM audit WHERE action NOT LIKE '%refused'" 0 \
    "bad requests change nothing"

out=$(python3 "$T_DIR/client.py" "$sock" big)
is "$out" '{"code":2,"message":"request too long (more than 4 MiB)"}
closed' "a request over 4 MiB is refused and the connection closed"

out=$(python3 "$T_DIR/client.py" "$sock" many)
is "$out" '{"code":0
{"code":1,"message":"you have 16 connections to the engine, the most one user may have; close one and try again"}' \
    "16 connections of one user are served; the 17th is told why"

cat >"$T_DIR/noop.json" <<'EOF2'
{"start": {"tool": "noop"}}
EOF2
python3 "$T_DIR/client.py" "$sock" subscribe >"$T_DIR/sub.out" &
spid=$!
wait_for grep -q subscribed "$T_DIR/sub.out"
run_sluice run "$T_DIR/noop.json"
wait "$spid"
is "$(cat "$T_DIR/sub.out")" '{"code":0,"message":"subscribed"}
{"event":"changed"}' "a subscriber is told after a commit"

python3 "$T_DIR/client.py" "$sock" deaf >"$T_DIR/deaf.out" &
dpid=$!
ENGINES="$ENGINES $dpid"
wait_for grep -q deaf "$T_DIR/deaf.out"
i=0
while [ "$i" -lt 20 ]; do
	i=$((i + 1))
	run_sluice run "$T_DIR/noop.json"
	[ "$RC" -eq 0 ] || break
done
is "$i:$RC" "20:0" "a subscriber that never reads does not hold up commands"
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null

engine_stop
is "$ERC" 0 "the engine stops cleanly"
[ ! -e "$sock" ]
ok $? "and removes its socket"

done_testing
