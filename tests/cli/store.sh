#!/bin/sh
# store.sh: the database file: where it is, its mode, and refusing files
# that are not ours, are newer, or are read-only, without touching them.
. "$TOP_SRCDIR/tests/lib.sh"

d="$TESTS_DATA/run"
unset SLUICE_DB

# Default path under XDG_STATE_HOME, created private.
run_sluice run "$d/hello.json"
expect_rc 0 "run with the default database"
db="$XDG_STATE_HOME/sluice/sluice.db"
[ -f "$db" ]
ok $? "the default database is \$XDG_STATE_HOME/sluice/sluice.db"
is "$(stat -c %a "$db")" 600 "the database is created mode 0600"
is "$(stat -c %a "$XDG_STATE_HOME/sluice")" 700 "its directory is 0700"

# --db wins over $SLUICE_DB.
SLUICE_DB="$T_DIR/env.db" run_sluice --db "$T_DIR/flag.db" init
[ -f "$T_DIR/flag.db" ] && [ ! -f "$T_DIR/env.db" ]
ok $? "--db wins over \$SLUICE_DB"
SLUICE_DB="$T_DIR/env.db" run_sluice --db "$T_DIR/flag.db" run "$d/hello.json"
expect_rc 0 "a run on the database init made"
SLUICE_DB="$T_DIR/env.db" run_sluice init
[ -f "$T_DIR/env.db" ]
ok $? "\$SLUICE_DB is used"

# A setgid team directory gives 0660 and the directory's group.
team="$T_DIR/team"
mkdir "$team"
grp=$(getent group users >/dev/null && echo users || id -gn)
chgrp "$grp" "$team" && chmod 2770 "$team"
run_sluice --db "$team/s.db" init
expect_rc 0 "init in a setgid directory"
is "$(stat -c %a "$team/s.db")" 660 "setgid directory: mode 0660"
is "$(stat -c %G "$team/s.db")" "$grp" "setgid directory: its group"

# Files that are not sluice databases are refused untouched.
printf 'hello, not a database\n' >"$T_DIR/text.db"
sum=$(md5sum <"$T_DIR/text.db")
run_sluice --db "$T_DIR/text.db" list
expect_rc 2 "a text file is refused"
like "$ERR" "is not a sluice database" "text file: reason"
one_line "$ERR" "text file: one line"
is "$(md5sum <"$T_DIR/text.db")" "$sum" "text file untouched"
run_sluice --db "$T_DIR/text.db" run "$d/hello.json"
expect_rc 2 "a write to a text file is refused"
is "$(md5sum <"$T_DIR/text.db")" "$sum" "text file still untouched"

sqlite3 "$T_DIR/other.db" 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'
sum=$(md5sum <"$T_DIR/other.db")
run_sluice --db "$T_DIR/other.db" run "$d/hello.json"
expect_rc 2 "another program's SQLite database is refused"
like "$ERR" "is not a sluice database" "foreign database: reason"
is "$(md5sum <"$T_DIR/other.db")" "$sum" "foreign database untouched"
[ ! -e "$T_DIR/other.db-wal" ]
ok $? "no WAL file made beside a foreign database"

cp "$T_DIR/flag.db" "$T_DIR/new.db"
sqlite3 "$T_DIR/new.db" 'PRAGMA user_version = 99;'
sum=$(md5sum <"$T_DIR/new.db")
run_sluice --db "$T_DIR/new.db" list
expect_rc 2 "a newer schema is refused"
like "$ERR" "newer than this sluice" "newer schema: reason"
is "$(md5sum <"$T_DIR/new.db")" "$sum" "newer schema untouched"

# A read-only database: reads work, writes are refused with exit 4.  Root
# ignores file modes, so as root the check runs as nobody.
ro="$T_DIR/ro"
mkdir "$ro"
db_init "$ro/s.db"
run_sluice --db "$ro/s.db" run "$d/hello.json"
chmod 0644 "$ro/s.db" "$ro/s.db-wal" "$ro/s.db-shm"
chmod 0755 "$ro" "$T_DIR"
as=""
if [ "$(id -u)" -eq 0 ]; then
	as="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
chmod 0555 "$ro"
sum=$(cat "$ro"/* | md5sum)
$as "$SLUICE" --db "$ro/s.db" run "$d/hello.json" >"$T_DIR/o" 2>"$T_DIR/e" </dev/null
RC=$?; ERR=$(cat "$T_DIR/e")
expect_rc 4 "a write to a read-only database exits 4"
like "$ERR" "read-only" "read-only: reason"
is "$(cat "$ro"/* | md5sum)" "$sum" "read-only database untouched"
$as "$SLUICE" --db "$ro/s.db" list >"$T_DIR/o" 2>"$T_DIR/e" </dev/null
RC=$?; ERR=$(cat "$T_DIR/e")
expect_rc 0 "reads from a read-only database work"
like "$(cat "$T_DIR/o")" "hello" "read-only database lists its runs"
chmod 0755 "$ro"

# The audit table is append-only.
sqlite3 "$T_DIR/flag.db" "UPDATE audit SET who = 'x';" 2>"$T_DIR/e"
ok $((! $?)) "UPDATE on audit is refused"
like "$(cat "$T_DIR/e")" "append-only" "the trigger says why"
sqlite3 "$T_DIR/flag.db" "DELETE FROM audit;" 2>/dev/null
ok $((! $?)) "DELETE on audit is refused"

done_testing
