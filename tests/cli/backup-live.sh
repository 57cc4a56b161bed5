#!/bin/sh
# tests/cli/backup-live.sh: "sluice backup" beside a running engine, with
# approvals coming while it copies.  A run fans out to three steps that
# each log 1 MB (a database of a few MiB) and 40 gates; an engine runs it;
# a backup slowed down to many slices (test builds:
# SLUICE_TEST_BACKUP_REST_MS, the rest between slices of 64 pages) copies
# the database while the gates are approved one after another.  Each
# approval is answered as applied while the backup still runs, and is in
# the live database; the copy passes SQLite's integrity_check and "audit
# --verify", and holds the database as it was when the backup began
# (without the approvals made during it).  The copy is written behind as
# it grows and synced once, at its end.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is needed"
awk 'BEGIN {
	printf "{\"start\": {\"tool\": \"noop\", \"parallel\": ["
	printf "\"big1\", \"big2\", \"big3\""
	for (i = 1; i <= 40; i++)
		printf ", \"g%d\"", i
	print "]},"
	for (i = 1; i <= 3; i++)
		printf "\"big%d\": {\"run\": [\"sh\", \"-c\", \"yes " \
		    "big | head -c 1000000\"], \"join\": \"end\"},\n", i
	for (i = 1; i <= 40; i++)
		printf "\"g%d\": {\"gate\": {\"message\": \"go?\"}, " \
		    "\"join\": \"end\"},\n", i
	print "\"end\": {\"tool\": \"noop\"}}"
}' >"$T_DIR/flow.json"
run_sluice check "$T_DIR/flow.json"
expect_rc 0 "the flow checks"
engine_start
run_sluice run "$T_DIR/flow.json"
expect_rc 0 "the run starts"
WF=$(new_id)

# gates_ready: the 40 gates wait and the three big steps are done.
gates_ready() {
	[ "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $WF
	    AND ((name LIKE 'g%' AND status = 'waiting') OR
	    (name LIKE 'big%' AND status = 'done'))")" -eq 43 ]
}
wait_for gates_ready
ok $? "the gates wait; the big steps are done"
q "SELECT id FROM workflow_steps WHERE workflow_id = $WF AND status =
    'waiting' ORDER BY id" >"$T_DIR/gates"
ok "$([ "$(stat -c %s "$SLUICE_DB")" -gt 2000000 ]; echo $?)" \
    "the database holds some MiB"

SLUICE_TEST_BACKUP_REST_MS=300 "$SLUICE" backup "$T_DIR/copy.db" \
    >"$T_DIR/backup.out" 2>"$T_DIR/backup.err" </dev/null &
BPID=$!
# Approve while the backup runs; each answer must come while it still
# runs (so the two interleaved) and say the gate was approved.
n=0 answered=0 during=0
: >"$T_DIR/done"
while read -r g; do
	alive "$BPID" || break
	n=$((n + 1))
	out=$("$SLUICE" approve "$g" -m "during backup" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -eq 0 ] && [ "${out%% (*}" = "approved step $g" ]; then
		answered=$((answered + 1))
		echo "$g" >>"$T_DIR/done"
	else
		echo "# approve $g: rc $rc: $out"
	fi
	alive "$BPID" && during=$((during + 1))
	[ "$n" -ge 40 ] && break
	sleep 0.1
done <"$T_DIR/gates"
wait "$BPID"
brc=$?
is "$brc" 0 "the backup succeeds"
like "$(cat "$T_DIR/backup.out")" "copy.db: copy of " "... and says so"
ok "$([ "$during" -ge 5 ]; echo $?)" \
    "approvals were answered while the backup ran ($during of $n)"
is "$answered" "$n" "every approval sent during the backup was answered as applied"
applied=$(for g in $(cat "$T_DIR/done"); do
	q "SELECT count(*) FROM approvals WHERE step_id = $g"
done | grep -c '^1$')
is "$applied" "$answered" "every one of them is in the live database"

is "$(sqlite3 "$T_DIR/copy.db" 'PRAGMA integrity_check')" ok \
    "the copy passes integrity_check"
is "$(sqlite3 "$T_DIR/copy.db" 'PRAGMA foreign_key_check' | wc -l)" 0 \
    "the copy's references hold"
run_sluice --db "$T_DIR/copy.db" audit --verify
expect_rc 0 "audit --verify passes on the copy"
ok "$([ "$(sqlite3 "$T_DIR/copy.db" 'SELECT count(*) FROM approvals')" \
    -lt "$(q 'SELECT count(*) FROM approvals')" ]; echo $?)" \
    "the copy is the database as the backup began: without the approvals made during it"
is "$(sqlite3 "$T_DIR/copy.db" "SELECT count(*) FROM workflow_steps
    WHERE workflow_id = $WF")" "44" "the copy has every step row"

# The copy is written behind a MiB at a time and synced once, whole, at
# its end (then its directory): no sync of the copy's during it asks the
# disk to flush its cache or the file system to commit its journal ahead
# of the engine's commits.  Linux only (sync_file_range); strace -y says
# which file each call was about.
if [ "$(uname -s)" != Linux ]; then
	skip_cases 3 "sync_file_range is Linux's"
elif ! command -v strace >/dev/null ||
    ! strace -o /dev/null true >/dev/null 2>&1; then
	skip_cases 3 "strace is missing or may not trace here"
else
	# LeakSanitizer cannot run under ptrace: leaks are checked above.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -y -o "$T_DIR/strace" \
	    -e trace=fsync,fdatasync,sync_file_range \
	    "$SLUICE" backup "$T_DIR/copy2.db" >/dev/null 2>"$T_DIR/strace.err"
	is "$?" 0 "a backup under strace succeeds"
	ok "$([ "$(grep -c 'sync_file_range(' "$T_DIR/strace")" -ge 2 ]; \
	    echo $?)" "the copy is written behind as it grows"
	is "$(grep -E '(fsync|fdatasync)\(' "$T_DIR/strace" |
	    grep -c -F "$T_DIR")" 2 \
	    "and synced once at its end, then its directory"
fi
engine_stop
is "$ERC" 0 "the engine stops cleanly"

done_testing
