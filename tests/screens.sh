#!/bin/sh
# tests/screens.sh: scripted screen tests, compared with expected text.
# Each tests/screens/NAME.script drives the console (src/ui/script.c) on
# a database of its own, made by tests/screens/NAME.setup when there is
# one (sh, sourced here with the test helpers; its runs are queued, and
# the console, the engine of its database, runs them).  Each ":dump DUMP"
# must equal tests/screens/NAME.DUMP.expected, with this test's temporary
# directory written as $T_DIR; a difference is shown as a unified diff.
# The databases are under $HOME and the runs' user is written as root, so
# the screens are the same whoever runs the test, wherever $TMPDIR is.
# SLUICE_SCREENS_UPDATE=1 (make screens-update) writes the expected files
# from the screens instead.  The wall clock is the test clock stopped at
# a fixed time ("@MS"), so times and ages on the screen do not move.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"
. "$TOP_SRCDIR/tests/clock-lib.sh"
. "$TOP_SRCDIR/tests/screen-lib.sh"	# scr_sanitizers_ok

need_test_clock
SDIR=$TOP_SRCDIR/tests/screens
UPDATE=${SLUICE_SCREENS_UPDATE:-}

# screens_run SCRIPT: the console on SCRIPT (a file), at 100x30 unless
# the script resizes it, dumping into $SCR_DIR; its status in $SCR_STATUS.
screens_run() {
	env TZ=UTC TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 \
	    ASAN_OPTIONS="log_path=$T_DIR/san-asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
	    UBSAN_OPTIONS="log_path=$T_DIR/san-ubsan:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
	    SLUICE_SCRIPT="$1" SLUICE_SCRIPT_DIR="$SCR_DIR" \
	    "$SLUICE" --db "$SLUICE_DB" </dev/null >"$SCR_DIR/out" \
	    2>"$SCR_DIR/err"
	SCR_STATUS=$?
}

# screen_script NAME LINES...: a script of these lines in $SCR_DIR.
screen_script() {
	SCR_DIR=$T_DIR/self-$1
	mkdir -p "$SCR_DIR"
	shift
	printf '%s\n' "$@" >"$SCR_DIR/script"
}

# screen_compare NAME DUMP: one case, the dump against its expected text.
screen_compare() {
	_exp=$SDIR/$1.$2.expected
	sed -E "s|$T_DIR|\$T_DIR|g; s|sluice-test\.[A-Za-z0-9]{6}|sluice-test.XXXXXX|g" \
	    "$SCR_DIR/$2.screen" >"$SCR_DIR/$2.masked"
	if [ -n "$UPDATE" ]; then
		cp "$SCR_DIR/$2.masked" "$_exp"
		ok $? "$1: $2 written to tests/screens/$1.$2.expected"
		return
	fi
	if [ ! -f "$_exp" ]; then
		ok 1 "$1: $2 has an expected screen"
		echo "# no $_exp (make screens-update writes it)"
		return
	fi
	diff -u "$_exp" "$SCR_DIR/$2.masked" >"$SCR_DIR/$2.diff"
	ok $? "$1: $2 is the expected screen"
	sed 's/^/# /' "$SCR_DIR/$2.diff"
}

for script in "$SDIR"/*.script; do
	name=$(basename "$script" .script)
	# Under $HOME the header shows "~/NAME.db", the same whatever
	# $TMPDIR is (a longer path would be cut differently).
	export SLUICE_DB="$HOME/$name.db"
	DB=$SLUICE_DB
	db_init
	clock_write @1767268800000	# 2026-01-01 12:00:00 UTC, stopped
	if [ -f "$SDIR/$name.setup" ]; then
		. "$SDIR/$name.setup"
	fi
	# The runs were started by whoever runs the test; the screens show
	# root, so that any user's make check sees the widths expected.
	q "UPDATE workflows SET created_by = 'root'"
	SCR_DIR=$T_DIR/$name
	mkdir -p "$SCR_DIR"
	{ echo ":resize 100x30"; cat "$script"; } >"$SCR_DIR/script"
	screens_run "$SCR_DIR/script"
	is "$SCR_STATUS" 0 "$name: the script ran to its end"
	[ "$SCR_STATUS" -eq 0 ] || sed 's/^/# /' "$SCR_DIR/err"
	for f in "$SCR_DIR"/*.screen; do
		[ -f "$f" ] || continue
		screen_compare "$name" "$(basename "$f" .screen)"
	done
	for f in "$SDIR/$name".*.expected; do
		[ -f "$f" ] || continue
		d=${f#"$SDIR/$name."}
		d=${d%.expected}
		[ -f "$SCR_DIR/$d.screen" ] && continue
		ok 1 "$name: $d was dumped"
	done
	SCR_DIR=
done

# The mechanism itself: a wait that times out fails the console with the
# place and the screen, and the dumps after it are still written; a bad
# line is refused with its place.
export SLUICE_DB="$T_DIR/self.db"
DB=$SLUICE_DB
db_init
screen_script timeout ":resize 80x24" ":timeout 1" ":wait no such text" \
    ":dump after"
screens_run "$SCR_DIR/script"
is "$SCR_STATUS" 1 "a wait that times out fails the console"
like "$(cat "$SCR_DIR/err")" "script:3: no line matched /no such text/ within 1s" \
    "... naming the script's line and the pattern"
like "$(cat "$SCR_DIR/err")" "  |Enter open" "... with the screen"
ok "$([ -f "$SCR_DIR/after.screen" ]; echo $?)" "... and the script goes on"
is "$(wc -l <"$SCR_DIR/after.screen")" 24 "a dump has the screen's rows"
screen_script key ":resize 80x24" ":key NoSuchKey" ":dump never"
screens_run "$SCR_DIR/script"
is "$SCR_STATUS" 1 "an unknown key fails the console"
like "$(cat "$SCR_DIR/err")" "script:2: unknown key \"NoSuchKey\"" \
    "... naming the script's line"
ok "$([ ! -f "$SCR_DIR/never.screen" ]; echo $?)" "... and the script stops"
screen_script command ":resize 80x24" ":frobnicate"
screens_run "$SCR_DIR/script"
like "$(cat "$SCR_DIR/err")" "script:2: unknown command \":frobnicate\"" \
    "an unknown command is refused with its place"
SCR_DIR=

# The stopped test clock: a run that takes 0.3 s starts and ends at the
# same wall time, the one the file says.
clock_write @1767268800000
cat >"$T_DIR/slow.json" <<'J'
{"start": {"shell": "sleep 0.3"}}
J
run_sluice run "$T_DIR/slow.json" --wait
is "$(q "SELECT started_at || ' ' || completed_at FROM workflows
    ORDER BY id DESC LIMIT 1")" "1767268800000 1767268800000" \
    "a stopped test clock (@MS) does not move"
scr_sanitizers_ok "no sanitizer report"

done_testing
