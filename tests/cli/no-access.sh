#!/bin/sh
# tests/cli/no-access.sh: someone who can neither open a service's
# database nor connect to its engine's socket (a real account outside the
# team, switched to with setpriv) gets exit 4 and one line that says so
# and names the group to ask for, whether they read (list, show, gates,
# audit), act (cancel, run) or ask about a request; the engine running or
# not.  A member whose database is closed to them (mode 0600, as service
# mode keeps it) with the engine stopped is told the engine does not
# answer, not to join the group.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/service-lib.sh"

svc_setup na

cat >"$flows/noop.json" <<'EOF2'
{"start": {"tool": "noop"}}
EOF2
chmod 0644 "$flows/noop.json"

denied="sluice: $SLUICE_DB: permission denied: neither the database nor its engine's socket is open to you (ask the service's owner to add you to group $grp)"

# outsider WHEN: every kind of command, as $eve, refused with exit 4.
outsider() {
	for c in list "show 1" gates audit "cancel 1" "run $flows/noop.json"; do
		# shellcheck disable=SC2086
		run_as "$eve" $c
		expect_rc 4 "$1: '$c' by someone outside the team: exit 4"
		is "$ERR" "$denied" "$1: '$c': one line, naming the group to ask for"
	done
	run_as "$eve" request 0123456789abcdef
	expect_rc 4 "$1: 'request ID' by someone outside the team: exit 4"
}

svc_engine
ok $? "the service's engine runs"
sum=$(db_digest)
outsider "engine running"
is "$(db_digest)" "$sum" "nothing changed"

engine_stop
outsider "no engine"

# A member with the database closed to them and no engine: start it.
chmod 0600 "$SLUICE_DB" "$SLUICE_DB-wal" "$SLUICE_DB-shm" 2>/dev/null
run_as "$alice" list
expect_rc 4 "a member who may not open the database, no engine: exit 4"
like "$ERR" "no engine answers on $SLUICE_DB.sock" \
    "told the engine does not answer"
unlike "$ERR" "add you to group" "not told to join the group they are in"

done_testing
