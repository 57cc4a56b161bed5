#!/bin/sh
# tests/cli/backup.sh: what "sluice backup" refuses and what it leaves.
# A target that is the database or a file beside it (its WAL, shared
# memory, journal, lock, socket, engine log), named directly, by a
# relative path or through a symlink, is refused with exit 2, --force or
# not, and the database keeps working.  A backup stopped by SIGINT,
# SIGTERM or SIGHUP removes its temporary file; one killed outright
# leaves it, and the next backup into that directory removes it.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

DB=$SLUICE_DB
cat >"$T_DIR/f.json" <<'EOF2'
{"start": {"tool": "noop"}}
EOF2
run_sluice run "$T_DIR/f.json" --name kept
expect_rc 0 "a run is recorded"
# Hold the WAL open (a reader that stays), so DB-wal and DB-shm exist.
sqlite3 "$DB" "SELECT count(*) FROM workflows" >/dev/null
[ -f "$DB-wal" ] || q "PRAGMA user_version" >/dev/null
: >"$DB.lock"
: >"$DB.sock"

n=0
for suffix in "" -wal -shm -journal .lock .sock .engine.log; do
	for force in "" --force; do
		run_sluice backup $force "$DB$suffix"
		expect_rc 2 "backup ${force:+--force }to DB$suffix is refused"
		n=$((n + 1))
	done
done
like "$ERR" "is the database's engine.log file" "... saying which file"
run_sluice backup --force "$DB-wal"
like "$ERR" "$DB-wal is the database's wal file, which the database needs as it is" \
    "the WAL: saying why"
ln -s "$DB-wal" "$T_DIR/innocent.db"
run_sluice backup --force "$T_DIR/innocent.db"
expect_rc 2 "a symlink to the WAL is refused"
ln -s "$DB" "$T_DIR/also.db"
run_sluice backup --force "$T_DIR/also.db"
expect_rc 2 "a symlink to the database is refused"
mkdir "$T_DIR/sub"
run_sluice backup --force "$T_DIR/sub/../$(basename "$DB")-shm"
expect_rc 2 "a path through .. to the shared memory is refused"
run_sluice list
expect_rc 0 "the database still works"
like "$OUT" kept "... with its run"
is "$(sqlite3 "$DB" 'PRAGMA integrity_check')" ok "... whole"
run_sluice backup "$DB.bak"
expect_rc 0 "a copy beside it under another name is fine"

# held SIG: a backup stopped with its temporary file made, sent SIG.
# Its exit status in $held_rc; INT, TERM and HUP reset to the default (a
# background job's SIGINT is ignored otherwise).
held() {
	rm -f "$T_DIR/held.db"
	SLUICE_TEST_HOLD=backup env --default-signal=INT,TERM,HUP "$SLUICE" \
	    --db "$DB" backup "$T_DIR/held.db" </dev/null \
	    >/dev/null 2>&1 &
	held_pid=$!
	_n=0
	while [ "$(awk '{print $3}' /proc/$held_pid/stat 2>/dev/null)" != T ]
	do
		_n=$((_n + 1))
		[ "$_n" -ge 200 ] && break
		sleep 0.05
	done
	ls -a "$T_DIR" | grep -q "^\.sluice-backup\.$held_pid\."
	held_tmp=$?
	kill -"$1" "$held_pid"
	kill -CONT "$held_pid"
	wait "$held_pid"
	held_rc=$?
}

for sig in INT TERM HUP; do
	held "$sig"
	is "$held_tmp" 0 "$sig: the stopped backup has its temporary file"
	is "$held_rc" "$((128 + $(kill -l "$sig")))" \
	    "$sig: the backup ends by the signal"
	is "$(ls -a "$T_DIR" | grep -c '^\.sluice-backup\.')" 0 \
	    "$sig: its temporary file is gone"
	[ ! -e "$T_DIR/held.db" ]
	ok $? "$sig: and no copy is left under the name asked for"
done

held KILL
is "$held_rc" 137 "KILL: the backup is killed outright"
is "$(ls -a "$T_DIR" | grep -c '^\.sluice-backup\.')" 1 \
    "KILL: its temporary file is left"
# Another writer's file, alive (this shell), is not touched.
: >"$T_DIR/.sluice-backup.$$.abcdef"
run_sluice backup "$T_DIR/next.db"
expect_rc 0 "the next backup into the directory"
is "$(ls -a "$T_DIR" | grep '^\.sluice-backup\.')" ".sluice-backup.$$.abcdef" \
    "... removes the dead writer's file, not a live one's"
rm -f "$T_DIR/.sluice-backup.$$.abcdef"

done_testing
