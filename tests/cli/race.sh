#!/bin/sh
# tests/cli/race.sh: races on first use.  Ten commands create the same new
# database at once, over several rounds: every one must succeed (none may
# find the file half made and call it "not a sluice database", or call a
# short wait "busy for more than 5s"), and each round's database holds all
# ten workflows, whole.  RACE_ROUNDS sets the rounds (default 10).

. "$TOP_SRCDIR/tests/lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
rounds=${RACE_ROUNDS:-10}
case $rounds in ''|*[!0-9]*) echo "Bail out! RACE_ROUNDS must be a number"
	exit 1 ;;
esac

cat >"$T_DIR/noop.json" <<'EOF2'
{"start": {"tool": "noop"}}
EOF2

failed=0
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	# The default path: the one a first run may create.
	db="$T_DIR/r$r/sub/sluice/sluice.db"
	pids=""
	for i in 0 1 2 3 4 5 6 7 8 9; do
		env -u SLUICE_DB XDG_STATE_HOME="$T_DIR/r$r/sub" \
		    "$SLUICE" run "$T_DIR/noop.json" \
		    >"$T_DIR/out.$r.$i" 2>"$T_DIR/err.$r.$i" </dev/null &
		pids="$pids $!"
	done
	i=0
	for p in $pids; do
		wait "$p"
		rc=$?
		if [ "$rc" -ne 0 ]; then
			failed=$((failed + 1))
			echo "# round $r creator $i: exit $rc:" \
			    "$(grep -v warning "$T_DIR/err.$r.$i")"
		fi
		i=$((i + 1))
	done
	n=$(sqlite3 "$db" "SELECT count(*) FROM workflows" 2>&1)
	[ "$n" = 10 ] || echo "# round $r: $n workflows"
	[ "$n" = 10 ] || failed=$((failed + 1))
	ic=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
	[ "$ic" = ok ] || echo "# round $r: integrity: $ic"
	[ "$ic" = ok ] || failed=$((failed + 1))
done
is "$failed" 0 "$rounds rounds of 10 concurrent creators: all succeed, \
every database whole"
is "$(stat -c %a "$T_DIR/r1/sub/sluice/sluice.db")" 600 "the database is 0600"
is "$(stat -c %a "$T_DIR/r1/sub/sluice")" 700 "its new directory is 0700"
run_sluice --db "$T_DIR/r1/sub/sluice/sluice.db" list --json
expect_rc 0 "the database made in the race is usable"

done_testing
