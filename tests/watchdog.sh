#!/bin/sh
# tests/watchdog.sh CMD...: run one test (make check's LOG_COMPILER) with a
# time limit, so a hung test fails instead of hanging make check.  The test
# runs in a session and process group of its own; after
# $SLUICE_TEST_TIMEOUT seconds (default 900) that group, and only it, gets
# SIGTERM (the test's traps stop what it started), then SIGKILL 10 s later,
# and the test is reported as failed with "Bail out!" (TAP).  When the test
# ends, anything it left behind in its group is ended too: a straggler
# holding the output pipe would keep the TAP reader waiting.

limit=${SLUICE_TEST_TIMEOUT:-900}
flag=$(mktemp "${TMPDIR:-/tmp}/sluice-watchdog.XXXXXX") || exit 99
rm -f "$flag"

if command -v setsid >/dev/null 2>&1; then
	setsid "$@" &
	group=-
else
	"$@" &
	group=
fi
pid=$!

# The watchdog writes nothing on the test's output: the TAP reader waits
# for every writer to finish.
(
	trap 'kill "$s" 2>/dev/null; exit 0' TERM
	sleep "$limit" &
	s=$!
	wait "$s"
	: >"$flag"
	kill -TERM "$group$pid" 2>/dev/null || exit 0
	sleep 10 &
	s=$!
	wait "$s"
	kill -KILL "$group$pid" 2>/dev/null
) </dev/null >/dev/null 2>&1 &
dog=$!

wait "$pid"
rc=$?
kill "$dog" 2>/dev/null
wait "$dog" 2>/dev/null
[ -n "$group" ] && kill -KILL "-$pid" 2>/dev/null
if [ -e "$flag" ]; then
	rm -f "$flag"
	echo "Bail out! timed out after $limit s (SLUICE_TEST_TIMEOUT)"
	exit 124
fi
exit "$rc"
