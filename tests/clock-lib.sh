#!/bin/sh
# tests/clock-lib.sh: the test clock, sourced after tests/lib.sh and
# tests/engine-lib.sh.  A binary built with --enable-test-clock reads
# $SLUICE_TEST_CLOCK: a file holding an offset in ms added to the real
# wall clock, or "=MS", the wall time when the file was written (it then
# advances with the real clock).  The file is replaced atomically, so a
# reader never sees it half written.

export SLUICE_TEST_CLOCK="$T_DIR/clock"

# need_test_clock: skip the script unless this sluice honours the test
# clock (a plain ./configure build, as README's build-from-git has it).
need_test_clock() {
	case "$("$SLUICE" --version 2>&1)" in
	*"test clock"*) ;;
	*)	skip_all "sluice was built without --enable-test-clock" ;;
	esac
}

# clock_write TEXT: the clock file says TEXT from now on.
clock_write() {
	printf '%s\n' "$1" >"$T_DIR/clock.tmp" && mv -f "$T_DIR/clock.tmp" \
	    "$T_DIR/clock"
}

# clock_offset MS: the wall clock runs MS ahead of the real one (0: real).
clock_offset() {
	clock_write "$1"
}

# clock_at MS: the wall clock says MS (Unix ms) now, and goes on from there.
clock_at() {
	clock_write "=$1"
}

# real_ms: the real wall clock in Unix ms.
real_ms() {
	date +%s%3N
}

# local_ms ZONE "YYYY-MM-DD HH:MM:SS": that local time in ZONE, in Unix ms.
local_ms() {
	echo "$(TZ="$1" date -d "$2" +%s)000"
}

# audit_count ACTION [LIKE]: audit rows of ACTION (whose comment or
# detail contains LIKE).
audit_count() {
	q "SELECT count(*) FROM audit WHERE action = '$1'
	    AND (COALESCE(comment, '') || COALESCE(detail_json, ''))
	    LIKE '%${2:-}%'"
}

# audit_has ACTION COUNT [LIKE]: there are at least COUNT such rows.
audit_has() {
	[ "$(audit_count "$1" "${3:-}")" -ge "$2" ]
}

# jumped COUNT: the engine has noticed COUNT clock jumps.
jumped() {
	audit_has clock-jump "$1"
}

# elapsed_ms SINCE: real ms since SINCE (a real_ms value).
elapsed_ms() {
	echo $(($(real_ms) - $1))
}

# between LOW HIGH VALUE DESCRIPTION: LOW <= VALUE <= HIGH.
between() {
	case "$3" in
	""|*[!0-9-]*)	set -- "$1" "$2" "not-a-number:$3" "$4" ;;
	esac
	if [ "${3#not-a-number:}" = "$3" ] && [ "$3" -ge "$1" ] &&
	    [ "$3" -le "$2" ]; then
		ok 0 "$4"
	else
		ok 1 "$4"
		printf '#   %s is not within %s..%s\n' "$3" "$1" "$2"
	fi
}
