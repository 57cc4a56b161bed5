#!/bin/sh
# tests/cli/leftover.sh: a leftover process that recovery cannot kill does
# not make it loop forever.  Recovery used to SIGKILL such a group again
# every grace, for ever, while the engine (or a console taking over) did
# nothing else.  The honest ways to get a process that survives SIGKILL
# are uninterruptible sleep (D state: a hung NFS server, a stuck device),
# which a test cannot arrange, and a process the engine may not signal:
# this test uses the second.  An engine running as an unprivileged user
# recovers a database whose running row names a process owned by root
# (as a step that ran a setuid program would leave); every kill fails
# with EPERM, as SIGKILL to a D-state process has no effect.  Recovery
# must give up after the grace plus a margin, fail the row for good
# saying why (never run the step again beside the live process), and
# carry on.  Needs root to create the user; skipped otherwise.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root to create a user"
command -v useradd >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1 ||
    skip_all "useradd and setpriv are needed"

U=sluicelo$$
useradd -M -N -g nogroup -d "$T_DIR/u" -s /bin/sh "$U" 2>"$T_DIR/useradd" ||
    useradd -M -d "$T_DIR/u" -s /bin/sh "$U" 2>>"$T_DIR/useradd" ||
    skip_all "cannot create a user: $(cat "$T_DIR/useradd")"
ROOTPID=
# At exit: the engines, every step process group the runs recorded, the
# root-owned leftover, then the user and the directory.
leftover_cleanup() {
	[ -n "$ROOTPID" ] && kill -9 "$ROOTPID" 2>/dev/null &&
	    wait "$ROOTPID" 2>/dev/null
	for p in $ENGINES; do
		kill -9 "$p" 2>/dev/null
	done
	for g in $(q "SELECT pgid FROM workflow_steps WHERE pgid > 1" \
	    2>/dev/null); do
		[ "$g" != "$ROOTPID" ] && kill -9 "-$g" 2>/dev/null
	done
	# A killed step may linger a moment as a zombie of the user's, which
	# makes a plain userdel refuse.
	_n=0
	while ! userdel "$U" 2>/dev/null && [ $_n -lt 20 ]; do
		_n=$((_n + 1))
		sleep 0.1
	done
	grep -q "^$U:" /etc/passwd && userdel -f "$U" 2>/dev/null
	rm -rf "$T_DIR"
}
trap leftover_cleanup EXIT

chmod 755 "$T_DIR"
mkdir -p "$T_DIR/u"
chown "$U" "$T_DIR/u"
export SLUICE_DB="$T_DIR/u/test.db"
export HOME="$T_DIR/u"
export XDG_CONFIG_HOME="$T_DIR/u/.config" XDG_STATE_HOME="$T_DIR/u/.state"

# as_user CMD...: run CMD as the test user.
as_user() {
	setpriv --reuid "$U" --regid "$(id -g "$U")" --clear-groups -- "$@"
}

# Queries as the test user too, so the database and its WAL files stay
# theirs (lib.sh's q would run as root).
Q_AS=as_user

cat >"$T_DIR/long.json" <<'J'
{"start": {"name": "long", "shell": "sleep 60", "on_interrupt": "retry",
  "retry": {"max_attempts": 3, "backoff": ["1s"]}}}
J
cat >"$T_DIR/quick.json" <<'J'
{"start": {"name": "quick", "tool": "echo", "args": {"x": 1}}}
J
chmod 644 "$T_DIR/long.json" "$T_DIR/quick.json"

# A step running under the user's engine, then the engine killed (-9)
# and its step with it: the row stays "running".
# (setpriv itself, not a function around it, so that $! is the engine.)
# The database first, as a user makes it; the run once the engine listens.
as_user "$SLUICE" init >/dev/null
setpriv --reuid "$U" --regid "$(id -g "$U")" --clear-groups -- \
    "$SLUICE" engine >"$T_DIR/e1.out" 2>&1 </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_for engine_named "$EPID"
wait_for test -S "$SLUICE_DB.sock"
as_user "$SLUICE" run "$T_DIR/long.json" >/dev/null
W=$(new_id)
wait_for step_is "$W" long running
ok $? "a step runs under the user's engine"
wait_for has_col "$W" long pid
SPID=$(col "$W" long pid)
engine_crash
kill -9 "-$SPID" 2>/dev/null
wait_for dead "$SPID"

# The row now names a live process of root's, in its own group.
setsid sleep 120 </dev/null >/dev/null 2>&1 &
ROOTPID=$!
wait_for test -r "/proc/$ROOTPID/stat"
sleep 0.1
btime=$(awk '/^btime/ { print $2 }' /proc/stat)
ticks=$(sed 's/.*) //' "/proc/$ROOTPID/stat" | awk '{ print $20 }')
hz=$(getconf CLK_TCK)
pstart=$((btime * 1000 + ticks * 1000 / hz))
q "UPDATE workflow_steps SET pid = $ROOTPID, pgid = $ROOTPID,
    proc_start = $pstart WHERE workflow_id = $W AND name = 'long'"
as_user kill -0 "$ROOTPID" 2>/dev/null
ok $((! $?)) "the user may not signal the leftover (EPERM)"

# A new engine as the user: grace 300 ms, then the fixed margin (5 s).
start=$(date +%s)
SLUICE_KILL_GRACE_MS=300 setpriv --reuid "$U" --regid "$(id -g "$U")" \
    --clear-groups -- "$SLUICE" engine >"$T_DIR/e2.out" 2>"$T_DIR/e2.err" \
    </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_for engine_named "$EPID"
ok $? "the new engine starts (recovery does not hold it up)"
as_user "$SLUICE" run --wait "$T_DIR/quick.json" >/dev/null 2>&1
ok $? "... and runs other work while it waits for the leftover"
n=0
while ! wf_ended "$W" && [ $n -lt 200 ]; do
	sleep 0.1
	n=$((n + 1))
done
took=$(($(date +%s) - start))
wf_ended "$W"
ok $? "recovery gave up on the leftover (after ${took} s)"
ok $((took > 15)) "... within the grace and the margin"
q_is "SELECT status || ' ' || attempt FROM workflow_steps WHERE
    workflow_id = $W" "failed 1" \
    "the row failed for good: no second attempt beside the live process"
like "$(col "$W" long error)" \
    "its process group $ROOTPID outlived SIGTERM and SIGKILL (Operation not permitted)" \
    "its error says why"
q_is "SELECT status FROM workflows WHERE id = $W" failed \
    "the workflow failed, for an operator to decide"
alive "$EPID"
ok $? "the engine carries on"
alive "$ROOTPID"
ok $? "(the leftover was really never killable)"
kill -TERM "$EPID"
wait "$EPID"
is "$?" 0 "the engine stops cleanly"

# The same with no engine running: a command that applies itself (here
# a run) recovers first, and must not wait for ever either.
setpriv --reuid "$U" --regid "$(id -g "$U")" --clear-groups -- \
    "$SLUICE" engine >"$T_DIR/e3.out" 2>&1 </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_for engine_named "$EPID"
as_user "$SLUICE" run "$T_DIR/long.json" >/dev/null
W2=$(new_id)
wait_for step_is "$W2" long running
wait_for has_col "$W2" long pid
SPID=$(col "$W2" long pid)
engine_crash
kill -9 "-$SPID" 2>/dev/null
wait_for dead "$SPID"
q "UPDATE workflow_steps SET pid = $ROOTPID, pgid = $ROOTPID,
    proc_start = $pstart WHERE workflow_id = $W2 AND name = 'long'"
start=$(date +%s)
SLUICE_KILL_GRACE_MS=300 timeout 60 setpriv --reuid "$U" \
    --regid "$(id -g "$U")" --clear-groups -- "$SLUICE" run \
    "$T_DIR/quick.json" >"$T_DIR/run.out" 2>"$T_DIR/run.err" </dev/null
rc=$?
took=$(($(date +%s) - start))
is "$rc" 0 "with no engine, a command recovers and is applied (${took} s)"
ok $((took > 15)) "... giving up on the leftover within the margin"
q_is "SELECT status || ' ' || attempt FROM workflow_steps WHERE
    workflow_id = $W2" "failed 1" "... and failing its row for good"
done_testing
