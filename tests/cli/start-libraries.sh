#!/bin/sh
# start-libraries.sh: what a command loads before it does its work.
# SQLite is loaded when a database is first opened and ncurses when the
# console sets a screen up, neither linked (src/store/driver-sqlite-lib.h,
# src/ui/curses-lib.h): a command the engine's socket answers maps
# neither, which is most of why an "approve" reaches the engine in less
# time; a command that opens the database loads SQLite, and the console
# (a scripted screen here) ncurses, and they work as before.  No build
# that inlines floor() needs libm at all.  glibc's
# dynamic loader says what it loads under LD_DEBUG=files.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/screen-lib.sh"

# loaded ARGS...: run sluice under LD_DEBUG=files; the loader's lines in
# $T_DIR/ld, sluice's own output as run_sluice keeps it.
loaded() {
	LD_DEBUG=files LD_DEBUG_OUTPUT="$T_DIR/ld" "$SLUICE" "$@" \
	    >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/out")
	ERR=$(cat "$T_DIR/err")
	cat "$T_DIR"/ld.* >"$T_DIR/ld" 2>/dev/null
	rm -f "$T_DIR"/ld.*
}

loaded --version
why="the dynamic loader says nothing under LD_DEBUG=files (not glibc's)"
grep -q 'file=libc\.so' "$T_DIR/ld" || skip_all "$why"
expect_rc 0 "--version exits 0"
! grep -q 'libsqlite3' "$T_DIR/ld"
ok $? "--version does not load SQLite"
! grep -q 'libncursesw\|libtinfo' "$T_DIR/ld"
ok $? "  nor ncurses"

cat >"$T_DIR/gate.json" <<'EOF2'
{"start": {"gate": {"message": "go?"}, "next": "after"},
 "after": {"run": ["true"]}}
EOF2
run_sluice run "$T_DIR/gate.json"
engine_start
wait_for test -S "$SLUICE_DB.sock"
# step_is NAME STATUS: the run's step NAME is STATUS.
step_is() {
	[ "$(q "SELECT status FROM workflow_steps WHERE name = '$1'")" = "$2" ]
}
wait_for step_is start waiting
step=$(q "SELECT id FROM workflow_steps WHERE name = 'start'")

loaded approve "$step" -m ok
expect_rc 0 "approve through the engine's socket exits 0"
is "$OUT" "approved step $step (start)" "  and says so"
! grep -q 'libsqlite3' "$T_DIR/ld"
ok $? "  without loading SQLite"
! grep -q 'libncursesw\|libtinfo' "$T_DIR/ld"
ok $? "  or ncurses"
# libm: sluice rounds without it (src/util/round.c) and links with
# --as-needed, so only a build whose compiler calls libm for floor()
# (no optimisation) needs it; a sanitizer's runtime may load it too.
if nm -D --undefined-only "$SLUICE" 2>/dev/null | grep -q ' floor@'; then
	skip_cases 1 "this build calls libm's floor() (not inlined)"
else
	! grep -q 'file=libm\.so[^;]*;  *needed by [^ ]*/sluice ' "$T_DIR/ld"
	ok $? "  nor does sluice itself need libm"
fi
wait_for step_is after done
ok $? "  and the next step ran"
engine_stop

# No engine: the command opens the database itself, loading SQLite then.
loaded list
expect_rc 0 "list with no engine exits 0"
like "$OUT" "gate" "  and lists the run"
grep -q 'file=libsqlite3\.so.*dynamically loaded' "$T_DIR/ld"
ok $? "  having loaded SQLite when it opened the database"
! grep -q 'libncursesw' "$T_DIR/ld"
ok $? "  but not ncurses"

# The console loads ncurses when it sets its (scripted) screen up.
scr_start LD_DEBUG=files LD_DEBUG_OUTPUT="$T_DIR/ld" --
scr_ok 'gate' "the console on a scripted screen shows the run"
scr_stop
is "$SCR_STATUS" 0 "  and quits with status 0"
cat "$T_DIR"/ld.* >"$T_DIR/ld" 2>/dev/null
grep -q 'file=libncursesw\.so.*dynamically loaded' "$T_DIR/ld"
ok $? "  having loaded ncurses when it set the screen up"

done_testing
