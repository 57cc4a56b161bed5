#!/bin/sh
# tests/cli/share-readers.sh: a database a team shares in a group-writable
# setgid directory (mode 2770; no service engine, members write it
# themselves) is never taken for a read-only one, whatever plain sqlite3
# readers do beside it.  Two members approve gates one after another, each
# command applying itself, while a third reads in a loop with a plain,
# writable sqlite3 that opens and closes the database (its WAL index
# made, recovered and removed under the writers' feet): every approval
# succeeds.  $SLUICE_TEST_APPROVALS sets how many (default 150; the
# issue asked 3000, a one-off run: SLUICE_TEST_APPROVALS=3000).  Before
# the fix, 2 of 600 failed "read-only".  Real, separate Unix accounts, as
# in service.sh.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/service-lib.sh"

svc_setup sr
n=${SLUICE_TEST_APPROVALS:-150}
svc_member src
carol=$member

team="$T_DIR/team"
mkdir "$team"
chown "$alice:$grp" "$team"
chmod 2770 "$team"
export SLUICE_DB="$team/sluice.db"
cat >"$flows/gate.json" <<'EOF2'
{"start": {"gate": {"message": "ship?"}}}
EOF2
chmod 0644 "$flows/gate.json"

# as_sh USER SCRIPT: a shell script as USER, with the usual umask (022):
# SQLite makes the -wal and -shm files it creates as writable as the
# database only just after creating them.
as_sh() {
	as "$1" sh -c "umask 022; $2"
}

as_sh "$alice" '"$SLUICE" init >/dev/null'
ok $? "a member makes the shared database"
is "$(stat -c '%a %G' "$SLUICE_DB")" "660 $grp" "group-writable, the team's group"

# The gates: runs started while a member's engine runs, then stopped.
setpriv --reuid="$alice" --regid="$(id -g "$alice")" --init-groups \
    "$SLUICE" engine >"$T_DIR/engine.out" 2>"$T_DIR/engine.err" </dev/null &
EPID=$!
ENGINES="$ENGINES $EPID"
wait_for test -S "$SLUICE_DB.sock"
as_sh "$alice" "i=0; while [ \$i -lt $n ]; do i=\$((i+1));
    \"\$SLUICE\" run '$flows/gate.json' >/dev/null || exit 1; done"
ok $? "$n runs started"
waiting() {
	[ "$(q "SELECT count(*) FROM workflow_steps WHERE status = 'waiting'")" = "$n" ]
}
wait_for waiting
ok $? "$n gates wait"
kill -TERM "$EPID"
wait "$EPID"
is "$?" 0 "the member's engine stops"

# carol reads in a loop with a plain sqlite3, until told to stop.
as_sh "$carol" "while [ ! -e '$T_DIR/stop' ]; do
    sqlite3 '$SLUICE_DB' 'SELECT count(*) FROM workflows' >/dev/null 2>&1
    done" &
rpid=$!
ENGINES="$ENGINES $rpid"

# alice and bob approve every gate, taking turns, each applying it itself.
q "SELECT id FROM workflow_steps WHERE status = 'waiting' ORDER BY id" \
    >"$T_DIR/gates"
chmod 0644 "$T_DIR/gates"
: >"$T_DIR/fail"
chmod 0666 "$T_DIR/fail"
mkdir -m 0777 "$T_DIR/w"		# each member's last stderr
for who in "$alice" "$bob"; do
	as_sh "$who" "k=0; while read -r id; do k=\$((k+1));
	    [ \$((k % 2)) -eq $([ "$who" = "$alice" ] && echo 1 || echo 0) ] ||
	        continue
	    \"\$SLUICE\" approve \"\$id\" -m ok >/dev/null 2>'$T_DIR/w/err.$who' ||
	        { echo \"\$id: \$(cat '$T_DIR/w/err.$who')\" >>'$T_DIR/fail'; }
	    done <'$T_DIR/gates'" &
	eval "apid_$who=\$!"
done
eval "wait \$apid_$alice"
eval "wait \$apid_$bob"
touch "$T_DIR/stop"
wait "$rpid"

is "$(wc -l <"$T_DIR/fail")" 0 "$n approvals beside a sqlite3 reader: none failed"
sed -n '1,5s/^/# /p' "$T_DIR/fail"
is "$(grep -c 'read-only' "$T_DIR/fail")" 0 "none was told the database is read-only"
is "$(q "SELECT count(*) FROM workflow_steps WHERE name = 'start' AND
    status = 'done'")" "$n" "every gate is approved"

done_testing
