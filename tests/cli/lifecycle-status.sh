#!/bin/sh
# lifecycle-status.sh: "sluice status", human and --json: the database
# (path, sizes, schema, runs by state), the engine (pid, host, since,
# mode), the config and tools files in use, and the problems found: runs
# in flight with no engine, an engine that died holding its record, an
# audit trail whose head was removed, config and tools files that do not
# parse.  Exit 1 when there is a problem.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

# jq1 PATH: one value of the last --json output.
jq1() {
	json_query "$OUT" "SELECT json_extract(j, '\$.$1') FROM d"
}

cat >"$T_DIR/gate.json" <<'J'
{"start": {"gate": {"message": "go?"}}}
J
cat >"$T_DIR/ok.json" <<'J'
{"start": {"tool": "noop"}}
J

# --- a fresh database -------------------------------------------------------------

run_sluice status
expect_rc 0 "status on a fresh database: exit 0"
like "$OUT" "database  $SLUICE_DB" "the database's path"
like "$OUT" "schema version $(sqlite3 "$SLUICE_DB" 'PRAGMA user_version')" \
    "its schema version"
like "$OUT" "engine    none" "no engine"
like "$OUT" "config    none" "no config file"
like "$OUT" "tools     built-in only" "no tools file"
like "$OUT" "problems  none" "no problems"
run_sluice status --json
expect_rc 0 "status --json"
is "$(jq1 database.path)" "$SLUICE_DB" "--json: the path"
is "$(jq1 database.size)" "$(stat -c %s "$SLUICE_DB")" "--json: its size"
is "$(jq1 database.wal_size)" "$(stat -c %s "$SLUICE_DB-wal")" \
    "--json: its WAL's size"
is "$(jq1 database.schema_version)" "$(sqlite3 "$SLUICE_DB" 'PRAGMA user_version')" \
    "--json: the schema version"
is "$(jq1 engine.running)" 0 "--json: no engine"
is "$(jq1 'problems')" "[]" "--json: no problems"
is "$(jq1 files.tools)" "" "--json: no tools file"

# --- runs and no engine ---------------------------------------------------------

wait_run "$T_DIR/ok.json"
run_sluice run "$T_DIR/gate.json"
run_sluice status
expect_rc 1 "runs in flight and no engine: exit 1"
like "$OUT" "1 run in flight and no engine runs" "the problem is named"
like "$OUT" "0 running, 1 waiting, 0 paused, 0 late, 0 scheduled" \
    "the runs by state (the console's words)"
like "$OUT" "1 completed, 0 failed" "finished ones too"
run_sluice status --json
is "$(jq1 database.counts.waiting)" 1 "--json: waiting"
is "$(jq1 database.counts.completed)" 1 "--json: completed"
like "$(jq1 problems)" "in flight" "--json: the problem"

# --- an engine --------------------------------------------------------------------

engine_start
wait_for step_is "$(new_id)" start waiting
run_sluice status
expect_rc 0 "with an engine: no problem"
like "$OUT" "engine    pid $EPID on $(hostname)" "the engine's pid and host"
like "$OUT" "(personal mode)" "and its mode"
like "$OUT" "0 running, 1 waiting, 0 paused, 0 late, 0 scheduled" \
    "the run at its gate is waiting, in the console's words"
like "$OUT" "1 completed, 0 failed, 0 cancelled; 1 gate waiting" \
    "and its gate is counted"
run_sluice status --json
is "$(jq1 engine.pid)" "$EPID" "--json: the pid"
is "$(jq1 database.counts.waiting)" 1 "--json: the waiting run"
is "$(jq1 database.gates)" 1 "--json: its gate"
is "$(jq1 engine.host)" "$(hostname)" "--json: the host"
is "$(jq1 engine.mode)" personal "--json: the mode"
case $(jq1 engine.since) in
2[0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z) ok 0 "--json: since when (RFC 3339)" ;;
*) ok 1 "--json: since when (RFC 3339): $(jq1 engine.since)" ;;
esac
engine_crash
run_sluice status
expect_rc 1 "an engine killed with -9: a problem"
like "$OUT" "the engine record names pid $EPID" "its stale record is named"

# --- the audit trail ------------------------------------------------------------

sqlite3 "$SLUICE_DB" "DELETE FROM audit_head"
run_sluice status
expect_rc 1 "an audit trail without its head: a problem"
like "$OUT" "the audit trail has no head" "saying so"
like "$OUT" "(sluice audit --verify)" "and how to look closer"

# --- a WAL file that grew --------------------------------------------------------

# Frames past the valid ones are never read: zeros make the file big
# without changing what the database holds.
truncate -s 65M "$SLUICE_DB-wal"
run_sluice status
expect_rc 1 "a WAL file over 64 MiB: a problem"
like "$OUT" "the WAL file is 65 MiB (over 64 MiB)" "saying how big"
run_sluice status --json
is "$(jq1 database.wal_size)" $((65 * 1024 * 1024)) "--json: its size"

# --- config and tools files -------------------------------------------------------

rm -f "$SLUICE_DB" "$SLUICE_DB-wal" "$SLUICE_DB-shm"
db_init
echo '{"jobs": 4}' >"$SLUICE_SITE_CONFIG"
printf '{"t": {"run": ["true"]}}\n' >"$T_DIR/tools.json"
SLUICE_TOOLS="$T_DIR/tools.json" run_sluice status --json
expect_rc 0 "config and tools files that parse: no problem"
is "$(jq1 files.config)" "$SLUICE_SITE_CONFIG" "--json: the config file in use"
is "$(jq1 files.tools)" "$T_DIR/tools.json" "--json: the tools file in use"
echo '{"jobs": ' >"$SLUICE_SITE_CONFIG"
run_sluice status
expect_rc 1 "a config file that does not parse: a problem"
like "$OUT" "the config file does not parse" "named in the report"
like "$ERR" "$SLUICE_SITE_CONFIG" "with the file's error on stderr"
rm -f "$SLUICE_SITE_CONFIG"
echo '{"t": {"run": 5}}' >"$T_DIR/tools.json"
SLUICE_TOOLS="$T_DIR/tools.json" run_sluice status
expect_rc 1 "a tools file with an error: a problem"
like "$OUT" "the tools catalog $T_DIR/tools.json does not parse" "named"

# --- a read-only database ---------------------------------------------------------

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 0755 "$T_DIR"
	chmod 0644 "$SLUICE_DB" "$SLUICE_DB-wal" "$SLUICE_DB-shm"
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/ \
	    "$SLUICE" status >"$T_DIR/o" 2>"$T_DIR/e"
	RC=$?
	is "$RC" 1 "a database read-only to the caller and no engine: exit 1"
	like "$(cat "$T_DIR/o")" "(read-only)" "it says read-only"
	like "$(cat "$T_DIR/o")" "commands that change it are refused" \
	    "and what that means"
else
	skip_cases 3 "needs root and setpriv"
fi

done_testing
