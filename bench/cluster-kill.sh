#!/bin/sh
#
# cluster-kill.sh [ROUNDS]: the cluster test of make check
# (tests/cluster/takeover.sh) at the issue's scale: ROUNDS kill -9s of the
# leader (default 200) during fan-outs, gates and for-each batches, three
# engine nodes on a PostgreSQL of its own, then the SIGSTOP, partition and
# split-brain cases.  Needs a sluice built --with-postgresql (and the
# forwarder, tests/cluster/forward, beside it: make check builds it) and
# Debian's postgresql.  $SLUICE names the binary (else ./sluice, else
# sluice on $PATH).  The test's own lines go to $CLUSTER_LOG when set.
# Prints one line:
#   cluster-kill: P of C checks passed; takeover ms: median M, max X (N)
# and exits 1 when a check failed.  Not part of make check.

set -eu

rounds=${1:-200}
case $rounds in ''|*[!0-9]*|0) echo "usage: $0 [ROUNDS]" >&2; exit 2;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/sluice-bin.sh"

log=${CLUSTER_LOG:-}
tmp=
if [ -z "$log" ]; then
	tmp=$(mktemp "${TMPDIR:-/tmp}/sluice-cluster.XXXXXX")
	log=$tmp
fi
trap 'rm -f ${tmp:+"$tmp"}' EXIT
trap 'exit 130' INT TERM

rc=0
SLUICE=$SLUICE TOP_SRCDIR=$top TESTS_DATA=$top/tests/data \
    SLUICE_ROUNDS=$rounds sh "$top/tests/cluster/takeover.sh" >"$log" 2>&1 ||
    rc=$?
if grep -q '^1\.\.0 # SKIP' "$log"; then
	echo "cluster-kill: skipped: $(sed -n 's/^1\.\.0 # SKIP //p' "$log")"
	exit 0
fi
pass=$(grep -c '^ok ' "$log" || true)
all=$(grep -c '^\(not \)\{0,1\}ok ' "$log" || true)
ms=$(sed -n 's/.*kill -9 rounds; takeover ms: *//p' "$log" | tr ' ' '\n' |
    grep . | sort -n)
n=$(echo "$ms" | grep -c . || true)
med=$(echo "$ms" | sed -n "$(( (n + 1) / 2 ))p")
max=$(echo "$ms" | tail -n 1)
grep '^not ok\|^#   ' "$log" >&2 || true
echo "cluster-kill: $pass of $all checks passed; takeover ms: median ${med:-?}, max ${max:-?} ($n)"
exit $rc
