#!/bin/sh
# lifecycle.sh: the database you meet is the one you meant (nothing but
# "init", and a first write on the default path, creates one), "sluice
# init", "sluice backup" (also of a live database), and the copy kept
# before a schema migration.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
d="$TESTS_DATA/run"

# --- a named path that does not exist ------------------------------------------

missing="$T_DIR/nonexistent/typo.db"
for cmd in "list" "show 1" "gates" "log 1" "audit" "audit --verify" \
    "template list" "template show t" "schedule list" "backup $T_DIR/b.db" \
    "run $d/hello.json" "template save t $d/hello.json" "engine --drain" \
    "approve 1" "cancel 1"; do
	# shellcheck disable=SC2086
	SLUICE_DB=$missing run_sluice $cmd
	expect_rc 2 "$cmd on a missing named database: exit 2"
	like "$ERR" "no database at $missing (is the path right? 'sluice init $missing' creates one)" \
	    "$cmd: says so, with the hint"
	one_line "$ERR" "$cmd: on one line"
	[ ! -e "$T_DIR/nonexistent" ] && [ ! -e "$T_DIR/b.db" ]
	ok $? "$cmd: no file or directory made"
done
run_sluice --db "$T_DIR/typo.db" gates
expect_rc 2 "--db names a path just as SLUICE_DB does"
[ ! -e "$T_DIR/typo.db" ]
ok $? "and it is not created either"

# --- the default path -----------------------------------------------------------

def="$XDG_STATE_HOME/sluice/sluice.db"
SLUICE_DB= run_sluice gates
expect_rc 2 "a read on a missing default database: exit 2"
like "$ERR" "no database at $def yet ('sluice init' creates it" "with the hint"
[ ! -e "$XDG_STATE_HOME/sluice" ]
ok $? "nothing made"
SLUICE_DB= run_sluice run "$d/hello.json"
expect_rc 0 "a first run creates the default database"
[ -f "$def" ]
ok $? "there"
SLUICE_DB= run_sluice list
like "$OUT" "hello" "and reads find it"

# --- init --------------------------------------------------------------------------

new="$T_DIR/team/sub/new.db"
run_sluice init "$new"
expect_rc 0 "init PATH creates a database"
is "$OUT" "$new: created" "saying so"
is "$(sqlite3 "$new" 'PRAGMA user_version')" \
    "$(sqlite3 "$SLUICE_DB" 'PRAGMA user_version')" "at the current schema"
is "$(stat -c %a "$new")" 600 "mode 0600"
run_sluice --db "$new" run "$d/hello.json"
expect_rc 0 "writes work on it"
sum=$(sqlite3 "$new" .dump | md5sum)
run_sluice --db "$new" init
expect_rc 0 "init on an existing sluice database: exit 0"
like "$OUT" "$new: already a sluice database" "saying so"
like "$OUT" "nothing changed" "and that nothing changed"
is "$(sqlite3 "$new" .dump | md5sum)" "$sum" "and nothing did"
printf 'not a database\n' >"$T_DIR/text.db"
sum=$(md5sum <"$T_DIR/text.db")
run_sluice init "$T_DIR/text.db"
expect_rc 2 "init on a file that is not a database: refused"
like "$ERR" "is not a sluice database" "saying why"
is "$(md5sum <"$T_DIR/text.db")" "$sum" "untouched"
sqlite3 "$T_DIR/foreign.db" 'CREATE TABLE t(x)'
sum=$(md5sum <"$T_DIR/foreign.db")
run_sluice init "$T_DIR/foreign.db"
expect_rc 2 "init on another program's SQLite database: refused"
is "$(md5sum <"$T_DIR/foreign.db")" "$sum" "untouched"
run_sluice init a b
expect_rc 2 "init takes one path"
mkdir "$T_DIR/adir"
run_sluice init "$T_DIR/adir"
expect_rc 2 "init on a directory: refused"
like "$ERR" "is a directory: name the database file in it" "saying what to do"

# --- backup -----------------------------------------------------------------------

run_sluice --db "$new" backup "$T_DIR/copy.db"
expect_rc 0 "backup writes a copy"
is "$(sqlite3 "$T_DIR/copy.db" 'PRAGMA integrity_check')" ok "a whole database"
is "$(sqlite3 "$T_DIR/copy.db" 'SELECT count(*) FROM workflows')" 1 \
    "with the runs"
is "$(stat -c %a "$T_DIR/copy.db")" 600 "mode 0600, as the database"
run_sluice --db "$T_DIR/copy.db" list
like "$OUT" "hello" "sluice reads the copy"
sum=$(md5sum <"$T_DIR/copy.db")
run_sluice --db "$new" backup "$T_DIR/copy.db"
expect_rc 2 "an existing file is not replaced"
like "$ERR" "$T_DIR/copy.db exists (--force replaces it)" "saying how"
is "$(md5sum <"$T_DIR/copy.db")" "$sum" "it is untouched"
run_sluice --db "$new" backup --force "$T_DIR/copy.db"
expect_rc 0 "--force replaces it"
run_sluice --db "$new" backup --force "$new"
expect_rc 2 "the database itself is refused, --force or not"
like "$ERR" "is the database itself" "saying why"
run_sluice --db "$new" backup "$T_DIR/nodir/x.db"
expect_rc 1 "a directory that does not exist: a failure"
like "$ERR" "cannot write $T_DIR/nodir/x.db" "saying where"
is "$(ls -a "$T_DIR" | grep -c sluice-backup)" 0 "no temporary file left"
run_sluice --db "$new" backup
expect_rc 2 "backup needs a file"

# A live database: a backup while the engine writes a long run.
items=$(i=1; while [ $i -le 40 ]; do printf '"h%d",' $i; i=$((i + 1)); done)
cat >"$T_DIR/busy.json" <<J
{"start": {"foreach": [${items%,}], "concurrency": 2,
  "do": {"shell": "sleep 0.05; echo \$SLUICE_STEP_ID"}, "next": "end"},
 "end": {"tool": "noop"}}
J
# steps_done N: at least N step rows are done.
steps_done() {
	[ "$(q "SELECT count(*) FROM workflow_steps WHERE status = 'done'")" \
	    -ge "$1" ]
}
engine_start
run_sluice run "$T_DIR/busy.json"
ID=$OUT
wait_for steps_done 5
run_sluice backup "$T_DIR/live.db"
expect_rc 0 "a backup while the engine runs a flow"
done_then=$(sqlite3 "$T_DIR/live.db" "SELECT count(*) FROM workflow_steps WHERE status = 'done'")
is "$(sqlite3 "$T_DIR/live.db" 'PRAGMA integrity_check')" ok \
    "the live copy is whole"
is "$(sqlite3 "$T_DIR/live.db" "SELECT count(*) FROM workflows WHERE id = $ID")" 1 \
    "it has the run"
[ "$done_then" -ge 5 ]
ok $? "and the steps done by then ($done_then)"
wait_for wf_ended "$ID"
wf_is "$ID" completed
ok $? "the run was not disturbed"
engine_stop
run_sluice --db "$T_DIR/live.db" audit --verify
expect_rc 0 "the copy's audit trail verifies"

# --- a copy before a schema migration ---------------------------------------

old="$T_DIR/old.db"
sqlite3 "$old" <"$TESTS_DATA/schema-v3.sql"
sum=$(sqlite3 "$old" .dump | md5sum)
run_sluice --db "$old" run "$d/hello.json"
expect_rc 0 "an old database is migrated on its first write"
bak=$(ls "$T_DIR"/old.db.v3-*.bak 2>/dev/null)
[ -n "$bak" ] && [ -f "$bak" ]
ok $? "a copy of it was kept beside it ($bak)"
like "$ERR" "upgraded database $old from schema version 3 to" "saying so"
like "$ERR" "the old one is kept at $bak" "and where"
is "$(sqlite3 "$bak" 'PRAGMA user_version')" 3 "the copy is the old schema"
is "$(sqlite3 "$bak" .dump | md5sum)" "$sum" "with the old rows, unchanged"
is "$(stat -c %a "$old")" 644 "(the old database is 0644)"
is "$(stat -c %a "$bak")" 640 "the copy has its mode, never readable by others"
run_sluice --db "$old" list
is "$(ls "$T_DIR"/old.db.v*.bak | wc -l)" 1 "no copy once it is current"
unlike "$ERR" "upgraded" "and nothing said"

old2="$T_DIR/old2.db"
sqlite3 "$old2" <"$TESTS_DATA/schema-v3.sql"
run_sluice init "$old2"
expect_rc 0 "init upgrades an old database"
like "$OUT" "upgraded from schema version 3" "saying so"
ls "$T_DIR"/old2.db.v3-*.bak >/dev/null 2>&1
ok $? "keeping a copy first"

# A copy that cannot be written stops the upgrade: a directory the user
# may not write, with the -wal and -shm files there and theirs, so the
# database itself is writable to them.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir "$T_DIR/ro"
	old3="$T_DIR/ro/old.db"
	sqlite3 "$old3" <"$TESTS_DATA/schema-v3.sql"
	touch "$old3-wal" "$old3-shm"
	chown 65534 "$old3" "$old3-wal" "$old3-shm"
	chmod 0555 "$T_DIR/ro"
	chmod 0755 "$T_DIR"
	sum=$(md5sum <"$old3")
	setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/ \
	    "$SLUICE" --db "$old3" init >"$T_DIR/o" 2>"$T_DIR/e"
	is "$?" 1 "no copy can be written: the upgrade is refused"
	like "$(cat "$T_DIR/e")" "cannot upgrade $old3 from schema version 3: keeping a copy first failed" \
	    "saying why"
	is "$(md5sum <"$old3")" "$sum" "the database is untouched"
	chmod 0755 "$T_DIR/ro"
else
	skip_cases 3 "needs root and setpriv"
fi

done_testing
