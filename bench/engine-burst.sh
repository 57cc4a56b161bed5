#!/bin/sh
#
# engine-burst.sh [W]: W workflows of three noop steps each, all queued
# with no engine running (not timed), then timed from the start of
# "sluice engine --drain" to its exit: how many steps a second the engine
# records when many workflows are ready at once.  Compare with
# floor-fsync.sh W (durable commits a second).  Prints one line:
#   sluice burst: W workflows, N noop steps in S s: R/s; peak RSS M KiB
#
# Default: W=1000.  $SLUICE names the binary.  Not part of make check.

w=${1:-1000}
case $w in ''|*[!0-9]*|0) echo "usage: $0 [W]" >&2; exit 2;; esac
. "$(dirname "$0")/engine-lib.sh"

cat >"$B_DIR/flow.json" <<'FLOW'
{"start": {"tool": "noop", "next": "two"},
 "two": {"tool": "noop", "next": "three"},
 "three": {"tool": "noop"}}
FLOW
queue "$B_DIR/flow.json" "$w"
engine_timed
n=$((w * 3))
ndone=$(count 'done')
[ "$ndone" -eq "$n" ] ||
    { echo "$0: $ndone of $n steps done" >&2; exit 1; }
echo "sluice burst: $w workflows, $n noop steps in $SECS s:" \
    "$(rate "$n")/s; peak RSS $RSS KiB"
