#!/bin/sh
#
# crash.sh [TRIALS]: the crash test of make check (tests/cli/crash.sh) at
# full scale: TRIALS kill -9s of the engine at random moments (default
# 200) over 100 workflows queued first and 8 more before each kill, then
# one engine drains them all and the ledger the steps wrote is checked
# against the database.  Takes several minutes.  $SLUICE names the binary
# (else ./sluice, else sluice on $PATH); a build with --enable-sanitizers
# checks more.  The test's own lines go to $CRASH_LOG when set.  Prints
# one line:
#   crash: TRIALS kills: P of C checks passed; COUNTS
# and exits 1 when a check failed.  Not part of make check.

set -eu

trials=${1:-200}
case $trials in ''|*[!0-9]*|0) echo "usage: $0 [TRIALS]" >&2; exit 2;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/sluice-bin.sh"

log=${CRASH_LOG:-}
tmp=
if [ -z "$log" ]; then
	tmp=$(mktemp "${TMPDIR:-/tmp}/sluice-crash.XXXXXX")
	log=$tmp
fi
trap 'rm -f ${tmp:+"$tmp"}' EXIT
trap 'exit 130' INT TERM

rc=0
SLUICE=$SLUICE TOP_SRCDIR=$top TESTS_DATA=$top/tests/data \
    CRASH_TRIALS=$trials CRASH_WORKFLOWS=${CRASH_WORKFLOWS:-100} \
    CRASH_PER_TRIAL=${CRASH_PER_TRIAL:-8} CRASH_DRAIN_S=${CRASH_DRAIN_S:-900} \
    sh "$top/tests/cli/crash.sh" >"$log" 2>&1 || rc=1
pass=$(grep -c '^ok ' "$log" || true)
all=$(grep -c '^\(not \)\{0,1\}ok ' "$log" || true)
counts=$(sed -n 's/^# \([0-9]* kills.*\)/\1/p' "$log" | tail -n 1)
grep '^not ok\|^#   ' "$log" >&2 || true
echo "crash: $pass of $all checks passed; $counts"
exit $rc
