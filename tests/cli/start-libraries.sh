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

# Locale categories: a command loads the four it uses at start; dates'
# (LC_TIME) only the console loads, for its month names.  strace says
# which of the locale's files each opens (C.UTF-8's, one per category,
# where no locale archive holds them).
run_sluice run "$T_DIR/gate.json"
# gate_waiting: the newest run's gate waits; its step id in $step.
gate_waiting() {
	step=$(q "SELECT s.id FROM workflow_steps s WHERE s.name = 'start'
	    AND s.status = 'waiting' ORDER BY s.id DESC LIMIT 1")
	[ -n "$step" ]
}
wait_for gate_waiting
if ! command -v strace >/dev/null ||
    ! strace -o /dev/null true >/dev/null 2>&1; then
	skip_cases 4 "strace is missing or may not trace here"
else
	# LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -o "$T_DIR/opens" -e trace=openat "$SLUICE" approve \
	    "$step" -m ok >"$T_DIR/out" 2>&1 </dev/null
	is "$?" 0 "an approve under strace exits 0"
	if ! grep -q '/LC_CTYPE"' "$T_DIR/opens"; then
		skip_cases 3 "the locale's categories are not files of their own here"
	else
		! grep -q '/LC_TIME"' "$T_DIR/opens"
		ok $? "  having loaded its locale but not LC_TIME"
		# The console (here refused: no terminal) loads LC_TIME.
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -o "$T_DIR/opens" -e trace=openat "$SLUICE" \
		    >"$T_DIR/out" 2>&1 </dev/null
		is "$?" 2 "the console with no terminal exits 2"
		grep -q '/LC_TIME"' "$T_DIR/opens"
		ok $? "  having loaded LC_TIME for its dates"
	fi
fi
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
