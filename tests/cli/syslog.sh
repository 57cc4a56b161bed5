#!/bin/sh
# tests/cli/syslog.sh: every audit row is copied to syslog(3) when its
# transaction commits: facility authpriv, priority notice (warning for a
# refusal), one line naming the row's id, action, person, uid, target
# and comment.  Captured for real: each sluice runs in a private mount
# namespace whose /dev/log is a datagram socket this test listens on, so
# syslog(3) is untouched and the host's /dev is not changed.  Needs root,
# unshare(1) and python3 (the listener); skipped with the reason without.

. "$TOP_SRCDIR/tests/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root for a private mount namespace"
command -v unshare >/dev/null 2>&1 || skip_all "needs unshare(1)"
command -v python3 >/dev/null 2>&1 || skip_all "needs python3 for the listener"
unshare -m true 2>/dev/null || skip_all "cannot make a mount namespace here"

me=$(id -un)
uid=$(id -u)
host=$(uname -n)
LOGSOCK="$T_DIR/log.sock"
GOT="$T_DIR/got"

cat >"$T_DIR/listen.py" <<'EOF'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
with open(sys.argv[2], "ab", buffering=0) as out:
    open(sys.argv[2] + ".ready", "w").close()
    while True:
        out.write(s.recv(65536) + b"\n")
EOF
python3 "$T_DIR/listen.py" "$LOGSOCK" "$GOT" &
LPID=$!
trap 'kill "$LPID" 2>/dev/null; rm -rf "$T_DIR"' EXIT
n=0
while [ ! -f "$GOT.ready" ] && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
[ -f "$GOT.ready" ] || skip_all "the listener did not start"

# The namespace: a tmpfs /dev with the devices sluice needs bound in,
# and /dev/log a link to our socket; then exec the command, so it keeps
# the pid it was started with.
NS_SETUP='
	d=$1; shift
	mount --make-rprivate / &&
	mkdir -p "$d/olddev" && mount --bind /dev "$d/olddev" &&
	mount -t tmpfs tmpfs /dev &&
	for n in null zero full random urandom tty; do
		[ -e "$d/olddev/$n" ] || continue
		touch "/dev/$n" && mount --bind "$d/olddev/$n" "/dev/$n"
	done &&
	ln -s "$d/log.sock" /dev/log &&
	exec "$@"'

# ns ARGS: run sluice ARGS where /dev/log is our socket; $OUT $ERR $RC.
ns() {
	unshare -m sh -c "$NS_SETUP" sh "$T_DIR" "$SLUICE" "$@" \
	    >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/out")
	ERR=$(cat "$T_DIR/err")
}

# got_line ID: the captured line for audit row ID (waits a little).
got_line() {
	_n=0
	while ! grep -q "sluice\[[0-9]*\]: audit $1: " "$GOT" 2>/dev/null &&
	    [ $_n -lt 100 ]; do
		sleep 0.05
		_n=$((_n + 1))
	done
	grep "sluice\[[0-9]*\]: audit $1: " "$GOT" | tail -n 1
}

cat >"$T_DIR/gate.json" <<'EOF'
{"start": {"gate": {"message": "go?", "approvers": ["someone-else"]},
  "next": "after"},
 "after": {"tool": "noop"}}
EOF

ns run "$T_DIR/gate.json"
expect_rc 0 "a run starts (no engine: the command applies itself)"
id=$OUT
g=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $id")
a=$(q "SELECT max(id) FROM audit")
line=$(got_line "$a")
like "$line" "<85>" "facility authpriv, priority notice"
like "$line" "sluice[" "under the identity sluice, with the pid"
like "$line" "audit $a: start by $me (uid $uid, - on $host): workflow $id gate" \
    "the start: row id, action, who, uid, tty, host and target"

ns approve "$g" -m "let me"
expect_rc 4 "an approval refused by the gate's rule"
a=$(q "SELECT max(id) FROM audit")
line=$(got_line "$a")
like "$line" "<84>" "a refusal is sent as a warning"
like "$line" "audit $a: approve-refused by $me (uid $uid, - on $host): step $g start: \"$me is not an approver of gate start (step $g): approvers are someone-else\"" \
    "with the rule that refused it as the comment"

printf '{"start": {"tool": "noop"}}\n' >"$T_DIR/t.json"
ns template save t "$T_DIR/t.json"
expect_rc 0 "a template saved by the CLI itself"
a=$(q "SELECT max(id) FROM audit")
like "$(got_line "$a")" "audit $a: template save by $me (uid $uid, - on $host)" \
    "its audit row is copied too"

ns cancel "$id" -m "done here"
expect_rc 0 "cancel"
a=$(q "SELECT max(id) FROM audit")
like "$(got_line "$a")" "audit $a: cancel by $me (uid $uid, - on $host): workflow $id gate: \"done here\"" \
    "the comment is in the copy"

# An agent's action (sluice mcp) says so in the copy.
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"template_delete","arguments":{"name":"t"}}}' \
    >"$T_DIR/mcp.in"
unshare -m sh -c "$NS_SETUP" sh "$T_DIR" "$SLUICE" mcp <"$T_DIR/mcp.in" \
    >"$T_DIR/out" 2>"$T_DIR/err"
like "$(cat "$T_DIR/out")" '"isError":false' "sluice mcp removes a template"
a=$(q "SELECT max(id) FROM audit")
like "$(got_line "$a")" "audit $a: template rm by $me via mcp (uid $uid, - on $host)" \
    "its copy says via mcp"

is "$(grep -c 'sluice\[[0-9]*\]: audit ' "$GOT")" "$(q "SELECT count(*) FROM audit")" \
    "one copy per audit row, no more"

# A row whose transaction is rolled back is never sent: a start refused
# for a missing input writes no row and sends nothing.
printf '{"inputs": {"x": {"required": true}}, "flow": {"start": {"tool": "noop"}}}\n' \
    >"$T_DIR/needs.json"
before=$(wc -l <"$GOT")
ns run "$T_DIR/needs.json"
expect_rc 2 "a run missing a required input is refused"
sleep 0.2
is "$(wc -l <"$GOT")" "$before" "nothing is sent for it"

# A running engine sends the rows of the commands it applies (posted to
# its inbox by a CLI outside the namespace, which sends nothing itself).
cat >"$T_DIR/open.json" <<'EOF'
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"tool": "noop"}}
EOF
(exec unshare -m sh -c "$NS_SETUP" sh "$T_DIR" "$SLUICE" engine \
    >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" </dev/null) &
EPID=$!
trap 'kill "$LPID" 2>/dev/null; kill -9 "$EPID" 2>/dev/null; rm -rf "$T_DIR"' EXIT
n=0
while [ "$(q "SELECT pid FROM engine" 2>/dev/null)" != "$EPID" ] && [ $n -lt 200 ]; do
	sleep 0.05
	n=$((n + 1))
done
[ "$(q "SELECT pid FROM engine")" = "$EPID" ]
ok $? "an engine runs in the namespace"
run_sluice run "$T_DIR/open.json"
expect_rc 0 "a run posted to the engine"
id=$OUT
g=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $id AND name = 'start'")
run_sluice approve "$g" -m "ship it"
expect_rc 0 "an approval posted to the engine"
a=$(q "SELECT max(id) FROM audit WHERE action = 'approve'")
line=$(got_line "$a")
like "$line" "sluice[$EPID]: audit $a: approve by $me (uid $uid, - on $host): step $g start: \"ship it\"" \
    "the engine sent the approval's row"
kill -TERM "$EPID"
wait "$EPID"

done_testing
