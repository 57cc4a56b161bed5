#!/bin/sh
#
# cluster-kill.sh [ROUNDS]: the cluster test of make check
# (tests/cluster/takeover.sh) with its figures: ROUNDS kill -9s of the
# leader (default 200, as in make check) during fan-outs, gates and for-each batches, three
# engine nodes on a PostgreSQL of its own, then the SIGSTOP, partition and
# split-brain cases.  Needs a sluice built --with-postgresql and Debian's
# postgresql.  $SLUICE names the binary (else ./sluice, else sluice on
# $PATH); the TCP forwarder is the one beside it
# (tests/cluster/forward, which make check builds), else one compiled
# here from tests/cluster/forward.c with $CC.  The test's own lines go to
# $CLUSTER_LOG when set.  Prints one line:
#   cluster-kill: P of C checks passed; takeover ms: median M, p90 Q,
#   max X (N rounds); re-runs R, L lost of A approvals, audit clean,
#   self-supersedes S
# and exits 1 when a check failed.  Not part of make check itself
# (bench-smoke runs it at 1 round).

set -eu

rounds=${1:-200}
case $rounds in ''|*[!0-9]*|0) echo "usage: $0 [ROUNDS]" >&2; exit 2;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/sluice-bin.sh"

log=${CLUSTER_LOG:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-cluster.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
[ -n "$log" ] || log=$tmp/log

fwd=$(dirname "$SLUICE")/tests/cluster/forward
if [ ! -x "$fwd" ]; then
	fwd=$tmp/forward
	${CC:-cc} -O2 -o "$fwd" "$top/tests/cluster/forward.c" ||
	    { echo "cluster-kill: cannot build the forwarder" >&2; exit 2; }
fi

rc=0
SLUICE=$SLUICE SLUICE_FORWARD=$fwd TOP_SRCDIR=$top \
    TESTS_DATA=$top/tests/data SLUICE_ROUNDS=$rounds \
    sh "$top/tests/cluster/takeover.sh" >"$log" 2>&1 || rc=$?
if grep -q '^1\.\.0 # SKIP' "$log"; then
	echo "cluster-kill: skipped: $(sed -n 's/^1\.\.0 # SKIP //p' "$log")"
	exit 0
fi
pass=$(grep -c '^ok ' "$log" || true)
all=$(grep -c '^\(not \)\{0,1\}ok ' "$log" || true)
ms=$(sed -n 's/.*kill -9 rounds; takeover ms: *//p' "$log" | tr ' ' '\n' |
    grep . | sort -n || true)
n=$(echo "$ms" | grep -c . || true)
med=$(echo "$ms" | sed -n "$(( (n + 1) / 2 ))p")
p90=$(echo "$ms" | sed -n "$(( (n * 9 + 9) / 10 ))p")
max=$(echo "$ms" | tail -n 1)
reruns=$(sed -n 's/.*no completed step ran again: \([0-9]*\) re-runs.*/\1/p' "$log")
lost=$(sed -n 's/.*was lost: \([0-9]* lost of [0-9]*\) approvals.*/\1/p' "$log")
selfsup=$(sed -n 's/.*self-supersedes during the kill rounds: \([0-9]*\).*/\1/p' "$log")
if grep -q '^ok .* audit --verify is clean' "$log"; then
	audit=clean
else
	audit="NOT clean"
fi
grep '^not ok\|^#   ' "$log" >&2 || true
echo "cluster-kill: $pass of $all checks passed; takeover ms: median ${med:-?}, p90 ${p90:-?}, max ${max:-?} ($n rounds); re-runs ${reruns:-?}, ${lost:-?} approvals, audit $audit, self-supersedes ${selfsup:-?}"
exit $rc
