#!/bin/sh
#
# powerloss.sh [POINTS]: the power-loss test of make check
# (tests/unit/test-powerloss) at full size: POINTS simulated power losses
# (default 1000) during engine work, each followed by a reopen and the
# checks, then a control run with synchronous=NORMAL that must lose
# acknowledged transitions.  The test program is built by "make check" or
# "make tests/unit/test-powerloss" in the build directory; name it with
# $POWERLOSS_BIN (else tests/unit/test-powerloss under the directory of
# $SLUICE, else under the current directory).  POWERLOSS_SEED repeats a
# run's crash choices; the test's own lines go to $POWERLOSS_LOG when set.
# Takes two or three minutes.  Prints one line:
#   powerloss: P of C checks passed; N crash points (...), A transitions
#   acknowledged, L lost; seed S
# and exits 1 when a check failed.  Not part of make check.

set -eu

points=${1:-1000}
case $points in ''|*[!0-9]*|0) echo "usage: $0 [POINTS]" >&2; exit 2;; esac

bin=${POWERLOSS_BIN:-}
if [ -z "$bin" ] && [ -n "${SLUICE:-}" ]; then
	bin=$(dirname "$SLUICE")/tests/unit/test-powerloss
fi
[ -n "$bin" ] || bin=./tests/unit/test-powerloss
if [ ! -x "$bin" ]; then
	echo "$0: no test program $bin: run 'make tests/unit/test-powerloss'" \
	    "in the build directory, or set POWERLOSS_BIN" >&2
	exit 2
fi

log=${POWERLOSS_LOG:-}
tmp=
if [ -z "$log" ]; then
	tmp=$(mktemp "${TMPDIR:-/tmp}/sluice-powerloss.XXXXXX")
	log=$tmp
fi
trap 'rm -f ${tmp:+"$tmp"}' EXIT
trap 'exit 130' INT TERM

rc=0
POWERLOSS_POINTS=$points "$bin" >"$log" 2>&1 || rc=1
pass=$(grep -c '^ok ' "$log" || true)
all=$(grep -c '^\(not \)\{0,1\}ok ' "$log" || true)
tried=$(sed -n 's/^# crash points tried: \([0-9]* ([^)]*)\).*/\1/p' "$log")
acked=$(sed -n 's/^# transitions acknowledged: \([0-9]*\), transitions lost: \([0-9]*\)/\1 transitions acknowledged, \2 lost/p' "$log")
seed=$(sed -n 's/^# seed \([0-9]*\) .*/\1/p' "$log")
grep '^not ok\|^#   \|^Bail out' "$log" >&2 || true
echo "powerloss: $pass of $all checks passed; $tried crash points, $acked;" \
    "seed $seed"
exit $rc
