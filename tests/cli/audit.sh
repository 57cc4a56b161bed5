#!/bin/sh
# tests/cli/audit.sh: the tamper-evident audit trail.  audit --verify on
# an intact trail; then each way the database can be forged around
# sluice with sqlite3 (a changed row, a removed row, the newest rows
# removed, a trigger dropped, an approvals row, an inbox row) is named,
# exit 1; a forged approval opens no gate and a forged command is
# refused by the engine; a version 3 database is chained at migration.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

me=$(id -un)

# verify_is RC FIRST DESCRIPTION: audit --verify exits RC and its first
# line of stdout is FIRST.
verify_is() {
	run_sluice audit --verify
	expect_rc "$1" "$3: exit $1"
	is "$(printf '%s\n' "$OUT" | head -n 1)" "$2" "$3"
}

cat >"$T_DIR/g.json" <<'EOF'
{"start": {"gate": {"message": "ok?", "quorum": 2}, "next": "b"},
 "b": {"tool": "noop"}}
EOF

# --- an intact trail -------------------------------------------------------------

run_sluice audit --verify
expect_rc 0 "an empty trail verifies"
like "$OUT" "audit trail intact: 0 rows, head 0000000000000000" "it says so"

run_sluice run "$T_DIR/g.json"
id=$OUT
run_sluice run "$T_DIR/g.json"
id2=$OUT
g=$(step_id "$id" start)
run_sluice approve "$g" -m first
expect_rc 0 "a first approval"
run_sluice audit --verify
expect_rc 0 "the trail verifies"
head=$(q "SELECT hash FROM audit ORDER BY id DESC LIMIT 1")
is "$OUT" "audit trail intact: 3 rows, head $head" "rows and the newest hash"
is "$(q "SELECT prev_hash FROM audit WHERE id = 2")" \
    "$(q "SELECT hash FROM audit WHERE id = 1")" "each row names the hash before it"
is "$(q "SELECT last_id || ' ' || hash FROM audit_head")" "3 $head" \
    "the head keeps the newest row"
run_sluice audit --json --limit 1
like "$OUT" "\"hash\": \"$head\"" "audit --json shows each row's hash"
like "$OUT" "\"uid\": $(id -u)" "and the uid it was recorded with"
run_sluice audit --verify --json
like "$OUT" '"intact": true' "JSON: intact"
like "$OUT" '"first_bad_row": null' "JSON: no bad row"

# Rows of every kind chain: a refusal too.
run_sluice approve "$g" -m again
expect_rc 4 "a second approval by the same person is refused"
run_sluice audit --verify
expect_rc 0 "a refusal's row is chained too"

# --- forged approvals ------------------------------------------------------------

q "INSERT INTO approvals (step_id, workflow_id, who, decision, at)
   VALUES ($g, $id, 'mallory', 'approve', 0)"
verify_is 1 "approval 2 (approve by mallory on step $g) has no audit row: sluice did not write it" \
    "a forged approvals row is named"
like "$ERR" "sluice: the audit trail does not verify: approval 2" "stderr says it does not verify"
run_sluice gates --json
like "$OUT" '"approvals": 1' "the forged approval does not count toward the quorum"
is "$(col "$id" start status)" waiting "and the gate still waits"
q "DELETE FROM approvals WHERE who = 'mallory'"

# --- forged commands ------------------------------------------------------------

q "INSERT INTO inbox (posted_at, uid, who, command, step_id, args_json)
   VALUES (0, 4242, 'mallory', 'approve', $g, '{}')"
forged=$(q "SELECT max(id) FROM inbox")
verify_is 1 "inbox command $forged (approve as mallory) has no valid seal: sluice did not post it" \
    "a forged inbox row is named"
engine_start
wait_for sh -c "[ \"\$(sqlite3 '$SLUICE_DB' \"SELECT state FROM inbox WHERE id = $forged\")\" = refused ]"
ok $? "the engine refuses the forged command"
like "$(q "SELECT reply FROM inbox WHERE id = $forged")" \
    "command $forged was not posted by sluice (no valid seal): refused" "and says why"
is "$(q "SELECT action || '|' || who FROM audit ORDER BY id DESC LIMIT 1")" \
    "command-refused|mallory" "the refusal is audited"
is "$(col "$id" start status)" waiting "the gate still waits"
# A real command still works beside it.
run_sluice cancel "$id2" -m "not needed"
expect_rc 0 "a command posted by sluice is applied"
engine_stop
q "DELETE FROM inbox WHERE id = $forged"

run_sluice audit --verify
expect_rc 0 "with the forgeries gone, the trail verifies again"

# --- another writer between the engine's turns -----------------------------------
# The engine keeps the audit head through a turn (store/audit.c); a row
# another process writes after that turn commits is followed, never
# written over: here the CLI's own refusal (template edit, before any
# editor) between an approval and a row the engine writes with no read
# of its own first.

run_sluice run "$T_DIR/g.json"
id3=$OUT
g3=$(step_id "$id3" start)
engine_start
run_sluice approve "$g3" -m "through the engine"
expect_rc 0 "an approval through the engine"
before=$(q "SELECT max(id) FROM audit")
printf '{"operators": ["nobody-at-all"]}\n' >"$SLUICE_SITE_CONFIG"
EDITOR=true run_sluice template edit another-writer
expect_rc 4 "the CLI refuses a template edit to a non-operator"
is "$(q "SELECT action FROM audit WHERE id = $((before + 1))")" \
    "template save-refused" "and wrote its refusal itself"
run_sluice cancel "$id3" -m "from another turn"
is "$(q "SELECT count(*) FROM audit WHERE id > $((before + 1))")" 1 \
    "the engine's next turn wrote a row after it"
rm -f "$SLUICE_SITE_CONFIG"
engine_stop
run_sluice audit --verify
expect_rc 0 "the trail verifies: the engine followed the other writer's row"

# --- a changed row ---------------------------------------------------------------

q "DROP TRIGGER audit_no_update; UPDATE audit SET comment = 'second' WHERE id = 3;
   CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;"
verify_is 1 "audit row 3 was changed: its hash does not match what it says" \
    "a changed row is named"
run_sluice audit --verify --json
like "$OUT" '"first_bad_row": 3' "JSON: the first bad row"
like "$OUT" '"intact": false' "JSON: not intact"

# --- removed rows ----------------------------------------------------------------

cp "$SLUICE_DB" "$T_DIR/before-delete.db"
q "DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE id = 3"
verify_is 1 "audit row 3 was removed (row 4 does not follow row 2)" \
    "a removed row is named (the first problem)"
like "$OUT" "the trigger audit_no_delete, which keeps the audit trail append-only, was dropped" \
    "the dropped trigger is named"
like "$OUT" "approval 1 (approve by $me on step $g) has no audit row" \
    "the approval whose row went is named"

cp "$T_DIR/before-delete.db" "$SLUICE_DB"
rm -f "$SLUICE_DB-wal" "$SLUICE_DB-shm"
last=$(q "SELECT max(id) FROM audit")
q "DROP TRIGGER audit_no_update; UPDATE audit SET comment = 'first' WHERE id = 3;
   CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
   DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE id >= $((last - 1));
   CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;"
verify_is 1 "audit rows after row $((last - 2)) were removed: the trail's head is row $last" \
    "removing the newest rows is seen"
# The next row sluice writes goes after the head, so the gap stays.
run_sluice run "$T_DIR/g.json"
expect_rc 0 "sluice goes on writing"
verify_is 1 "audit rows $((last - 1)) to $last were removed (row $((last + 1)) does not follow row $((last - 2)))" \
    "and the gap stays visible"

# --- migration: a version 3 database is chained ---------------------------------

rm -f "$SLUICE_DB" "$SLUICE_DB-wal" "$SLUICE_DB-shm"
sqlite3 "$SLUICE_DB" <"$TESTS_DATA/schema-v3.sql"
is "$(q "PRAGMA user_version")" 3 "a database made by sluice at schema version 3"
run_sluice run "$T_DIR/g.json"
expect_rc 0 "sluice opens it to write"
[ "$(q "PRAGMA user_version")" -ge 4 ]
ok $? "and migrates it"
run_sluice audit --verify
expect_rc 0 "its rows were chained at migration, and the new one after them"
is "$OUT" "audit trail intact: 4 rows, head $(q "SELECT hash FROM audit WHERE id = 4")" \
    "all of them"
is "$(q "SELECT count(*) FROM approvals WHERE audit_id = 2")" 1 \
    "its approval is linked to its audit row"
run_sluice gates --json
like "$OUT" '"approvals": 1' "and still counts"
q_is "SELECT count(*) FROM inbox WHERE seal IS NULL" 0 "its inbox row was sealed"
q_is "SELECT count(*) FROM sqlite_master WHERE name = 'audit_no_update'" 1 \
    "the no-update trigger is back"

done_testing
