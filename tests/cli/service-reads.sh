#!/bin/sh
# tests/cli/service-reads.sh: service mode where members touch no file.
# The database, its -wal, -shm and lock file are the service account's
# alone (0600); real members (separate Unix accounts) cannot open any of
# them, so the shm-lock, flock and read-transaction attacks cannot start;
# every read command answers a member through the engine's socket exactly
# as it answers the service account from the file (--json compared); log
# -f follows a running step; the console draws as a member; the WAL stays
# small over 300 runs while members read all the time; backups are 0600;
# a hand-made read that writes or attaches is refused; a runaway read
# does not keep the engine from answering a ping; a member gets exit 4
# and a line when no engine answers, as does someone outside the team.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/service-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

svc_setup sr
svc_python

cat >"$flows/gate.json" <<'EOF2'
{"start": {"gate": {"message": "ship?"}, "next": "after"},
 "after": {"run": ["true"]}}
EOF2
cat >"$flows/talk.json" <<EOF2
{"start": {"shell": "for i in 1 2 3 4 5; do echo line \$i; sleep 0.3; done; i=0; while [ ! -f $T_DIR/release ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i+1)); done; echo last"}}
EOF2
cat >"$flows/noop.json" <<'EOF2'
{"start": {"tool": "noop"}}
EOF2
cat >"$flows/noop2.json" <<'EOF2'
{"start": {"tool": "noop", "next": "more"}, "more": {"tool": "noop"}}
EOF2
chmod 0644 "$flows"/*.json

# same_as_service DESC ARGS...: a member's answer (through the engine)
# is the service account's own (from the file), byte for byte.
same_as_service() {
	_d=$1
	shift
	as "$svc" "$SLUICE" "$@" >"$T_DIR/svc.out" 2>&1 </dev/null
	_src=$?
	as "$alice" "$SLUICE" "$@" >"$T_DIR/mem.out" 2>&1 </dev/null
	_mrc=$?
	if [ "$_src" -eq "$_mrc" ] && cmp -s "$T_DIR/svc.out" "$T_DIR/mem.out"
	then
		ok 0 "$_d"
	else
		ok 1 "$_d"
		printf "# %s\n" "service (rc $_src): $(head -c 600 "$T_DIR/svc.out")"
		printf "# %s\n" "member (rc $_mrc): $(head -c 600 "$T_DIR/mem.out")"
	fi
}

# --- the files are the service account's alone ------------------------------

svc_engine
ok $? "the engine runs as the service account and listens"
run_as "$alice" run "$flows/noop.json" --wait
expect_rc 0 "a member runs a flow through the engine"
for f in "" -wal -shm .lock; do
	is "$(stat -c '%a %U' "$SLUICE_DB$f")" "600 $svc" \
	    "sluice.db$f is 0600, the service account's"
done
is "$(stat -c '%a %U %G' "$SLUICE_DB.sock")" "660 $svc $grp" \
    "only the socket is the team's (0660)"

for f in "" -wal -shm .lock; do
	got=$(as "$alice" "$PY" -c '
import sys
try:
    open(sys.argv[1], "rb")
    print("opened")
except OSError as e:
    print(e.errno == 13 and "EACCES" or e.strerror)' "$SLUICE_DB$f")
	is "$got" "EACCES" "a member's open() of sluice.db$f fails with EACCES"
done
got=$(as "$alice" "$PY" -c '
import fcntl, os, sys
try:
    fd = os.open(sys.argv[1], os.O_RDWR)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 120)
    print("locked")
except OSError as e:
    print(e.errno == 13 and "EACCES" or e.strerror)' "$SLUICE_DB-shm")
is "$got" "EACCES" "the shm-lock attack (fcntl.lockf on -shm) cannot start"
as "$alice" flock -n "$SLUICE_DB.lock" true 2>"$T_DIR/flock.err"
ok $((! $?)) "flock of the lock file fails"
like "$(cat "$T_DIR/flock.err")" "Permission denied" "  with EACCES"
as "$alice" sqlite3 "$SLUICE_DB" "BEGIN; SELECT count(*) FROM workflows;" \
    >"$T_DIR/sq.out" 2>&1
ok $((! $?)) "a read transaction held by a member cannot start"
like "$(cat "$T_DIR/sq.out")" "unable to open database" \
    "  (the file will not open)"

# --- every read command answers a member as it answers the service ------------

run_as "$alice" run "$flows/gate.json"
expect_rc 0 "a member starts a gated run"
gwf=$OUT
wait_for wf_is "$gwf" running
gstep=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $gwf AND
    name = 'start'")
wait_for row_is "$gstep" waiting
run_as "$alice" template save sr-tpl "$flows/noop.json"
expect_rc 0 "template save (version 1)"
run_as "$bob" template save sr-tpl "$flows/noop2.json"
expect_rc 0 "template save (version 2)"

run_as "$bob" schedule add sr-nightly --cron "@daily" --template sr-tpl
expect_rc 0 "schedule add"

# (--json where there is one: the human forms show ages, which move.)
same_as_service "list --json" list --json
same_as_service "list --all --json" list --all --json
same_as_service "show --json" show "$gwf" --json
same_as_service "gates --json" gates --json
same_as_service "audit --json" audit --json
same_as_service "audit --verify" audit --verify
same_as_service "template list --json" template list --json
same_as_service "template history --json" template history sr-tpl --json
same_as_service "template diff" template diff sr-tpl 1 2
same_as_service "schedule list --json" schedule list --json
run_as "$alice" gates --json
like "$OUT" "\"step_id\": $gstep" "the member sees the gate"
run_as "$alice" audit --verify
expect_rc 0 "a member's audit --verify succeeds"
run_as "$alice" status
expect_rc 0 "a member's status: no problem"
like "$OUT" "engine    pid $EPID on " "it names the service engine"
like "$OUT" "(service mode)" "in service mode"

run_as "$alice" approve "$gstep" -m ok
expect_rc 0 "a member still writes through commands"
wait_for wf_is "$gwf" completed

# --- log -f follows a running step ------------------------------------------

run_as "$alice" run "$flows/talk.json"
twf=$OUT
wait_for wf_is "$twf" running
tstep=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $twf")
as "$alice" "$SLUICE" log -f "$tstep" >"$T_DIR/follow.out" 2>&1 </dev/null &
fpid=$!
wait_for grep -q "line 2" "$T_DIR/follow.out"
ok $? "log -f shows a running step's lines as they come"
kill -0 "$fpid" 2>/dev/null
ok $? "  and goes on following"
touch "$T_DIR/release"
wait "$fpid"
ok $? "log -f ends when the step ends"
is "$(cat "$T_DIR/follow.out")" "line 1
line 2
line 3
line 4
line 5
last" "  having shown every line once"

# --- the console, as a member ------------------------------------------------

umask 000	# the console, as alice, writes its screens in SCR_DIR
scr_start_cmd 80x24 -- setpriv --reuid="$alice" --regid="$(id -g "$alice")" \
    --init-groups "$SLUICE"
umask 022
scr_ok "^$twf +talk" "a member's console lists the runs, drawn through the engine"
scr_keys Enter
scr_ok "✓ start " "  and opens a run's tree"
scr_gone_ok "read:|vtable" "  reading all it shows through the engine"
scr_stop
is "$SCR_STATUS" 0 "  and quits cleanly"

# --- the WAL stays small while members read ---------------------------------

# Two members reading all the time, as open consoles do, over 300 runs.
# setpriv itself in the background, not the as function: then $! is the
# loop (setpriv execs it) and kill ends it; killing a function's subshell
# would leave the loop running as the member, and their account could
# not be removed at exit.
setpriv --reuid="$alice" --regid="$(id -g "$alice")" --init-groups \
    sh -c 'while :; do "$1" list >/dev/null 2>&1; sleep 0.2; done' sh \
    "$SLUICE" &
r1=$!
setpriv --reuid="$bob" --regid="$(id -g "$bob")" --init-groups \
    sh -c 'while :; do "$1" show "$2" --json >/dev/null 2>&1; sleep 0.2; done' \
    sh "$SLUICE" "$gwf" &
r2=$!
umask 000
scr_start_cmd 80x24 -- setpriv --reuid="$bob" --regid="$(id -g "$bob")" \
    --init-groups "$SLUICE"
umask 022
scr_wait "^$gwf +gate"
max=0
i=0
while [ $i -lt 300 ]; do
	as "$alice" "$SLUICE" run "$flows/noop2.json" >/dev/null 2>&1
	i=$((i + 1))
	if [ $((i % 20)) -eq 0 ]; then
		w=$(stat -c %s "$SLUICE_DB-wal")
		[ "$w" -gt "$max" ] && max=$w
	fi
done
scr_keys r
scr_stop
kill "$r1" "$r2"
wait "$r1" "$r2" 2>/dev/null
wait_for test "$(q "SELECT count(*) FROM workflows WHERE status = 'completed'")" -ge 300
w=$(stat -c %s "$SLUICE_DB-wal")
[ "$w" -gt "$max" ] && max=$w
ok $((max >= 4194304)) "the WAL stays under 4 MiB over 300 runs with members reading (at most $max bytes)"

# --- a hand-made read that writes is refused --------------------------------

cat >"$T_DIR/read.py" <<'EOF2'
import json, socket, sys, threading, time
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    return s, s.makefile("rw")
def ask(f, o):
    f.write(json.dumps(o) + "\n")
    f.flush()
    return json.loads(f.readline())
what = sys.argv[2]
s, f = conn()
if what == "sql":
    a = ask(f, {"command": "read", "sql": sys.argv[3]})
    print(a["code"], a.get("error", ""), a.get("message", ""))
elif what == "runaway":
    out = {}
    def run():
        out["a"] = ask(f, {"command": "read", "sql":
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c"
            " WHERE x < 1000000000) SELECT count(*) FROM c"})
    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.3)
    s2, f2 = conn()
    t0 = time.time()
    p = ask(f2, {"command": "ping"})
    ms = (time.time() - t0) * 1000
    s3, f3 = conn()
    r = ask(f3, {"command": "read", "sql": "SELECT ? + 1", "values": [41]})
    t.join()
    print(p["code"], "ping %s" % ("fast" if ms < 500 else "slow %d ms" % ms))
    print(out["a"]["code"], out["a"].get("message", ""))
    print("other read:", r["code"], r.get("rows"))
EOF2
chmod 0644 "$T_DIR/read.py"
for sql in "DELETE FROM audit" "INSERT INTO audit(id) VALUES (1)" \
    "UPDATE workflows SET status = 'failed'" "PRAGMA user_version = 99" \
    "ATTACH '/tmp/x.db' AS x" "CREATE TEMP TABLE t(x)" \
    "SELECT 1; DELETE FROM audit"; do
	got=$(as "$alice" "$PY" "$T_DIR/read.py" "$SLUICE_DB.sock" sql "$sql")
	case $got in
	"1 "*)	ok 0 "a member's read \"$sql\" is refused" ;;
	*)	ok 1 "a member's read \"$sql\" is refused"
		printf "# got: %s\n" "$got" ;;
	esac
done
got=$(as "$alice" "$PY" "$T_DIR/read.py" "$SLUICE_DB.sock" sql \
    "DELETE FROM audit")
is "$got" "1 readonly read-only: members write through commands" \
    "  saying members write through commands"
is "$(q "SELECT count(*) > 0 FROM audit")" 1 "  and nothing was written"

got=$(as "$alice" "$PY" "$T_DIR/read.py" "$SLUICE_DB.sock" runaway)
like "$got" "0 ping fast" \
    "a runaway read does not keep the engine from answering a ping"
like "$got" "read stopped: one row took more than 2000 ms" \
    "  and is stopped at the limit, saying so"
like "$got" "other read: 0 [[42]]" \
    "  and another member's read meanwhile is answered after it"
run_as "$alice" list
expect_rc 0 "the engine reads on after it"

# --- backups are the service account's alone too ----------------------------

# (The temporary file is made 0600 and given the database's mode, 0600.)
as "$svc" "$SLUICE" backup "$dir/copy.db" >"$T_DIR/bak.out" 2>&1 </dev/null
ok $? "the service account backs the database up"
is "$(stat -c '%a %U' "$dir/copy.db")" "600 $svc" \
    "  the backup is 0600, the service account's"
is "$(ls -a "$dir" | grep -c '^\.sluice-backup\.')" 0 \
    "  and no temporary file is left"

# --- no engine, no access ----------------------------------------------------

run_as "$eve" list
expect_rc 4 "someone outside the team is refused (exit 4)"
like "$ERR" "permission denied: neither the database nor its engine's socket is open to you" "  saying so"
kill "$EPID"
wait "$EPID" 2>/dev/null
run_as "$alice" list
expect_rc 4 "with no engine to ask a member's read is refused (exit 4)"
is "$ERR" "sluice: cannot open database $SLUICE_DB: Permission denied, and no engine answers on $SLUICE_DB.sock to read it for you: start its engine (systemctl start sluice-engine) or ask whoever runs it" \
    "  in one line saying why"

scr_sanitizers_ok "no sanitizer report from the member consoles"
done_testing
