#!/bin/sh
# console.sh: the console's header in cluster mode (SPEC §14, sluice(1)
# CLUSTER) names the leader and its epoch, read from the database (a
# member's console reads it through its node's socket the same way), and
# follows a takeover.  Two engine nodes on a PostgreSQL of our own; the
# console runs on node 2 from a key script (tests/screen-lib.sh).
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"
. "$TOP_SRCDIR/tests/screen-lib.sh"

cl_setup
node_start 1
set -- $(leader_wait 1 20000)
is "${1:-}" 1 "the first node leads"
epoch=${2:-0}
node_start 2
standing_by 2
ok $? "the second stands by"

DB=$NODE_DB_2
scr_start 140x20 SLUICE_NODE=n2 SLUICE_SOCKET="$T_DIR/n2.sock" --
scr_ok "leader n1, epoch $epoch" "the header names the leader and its epoch" 15

# The leader killed: node 2 takes over with a new epoch; the header says.
kill -9 "$(node_pid 1)"
set -- $(leader_wait $((epoch + 1)) 20000)
is "${1:-}" 2 "node 2 takes over"
scr_ok "leader n2, epoch ${2:-?}" "the header follows the takeover" 15

scr_stop
is "$SCR_STATUS" 0 "the console quits cleanly"
scr_sanitizers_ok "no sanitizer report"

done_testing
