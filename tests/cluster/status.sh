#!/bin/sh
# status.sh: "sluice status" on a cluster (SPEC §14, sluice(1) CLUSTER)
# with three engine nodes on a PostgreSQL primary and synchronous
# standby of our own:
#
# - a database of schema 17 gains the nodes table on "sluice init" (and
#   is migrated to the newest schema);
# - text and --json name the leader with its epoch and all three nodes,
#   and find no problem;
# - a standby killed with kill -9 is named as a problem after 3×L, and
#   status on its own node says its engine is not running (exit 1);
# - a standby whose lock session is lost and cannot connect again says
#   so once, retries, and stands by again once it can;
# - "cluster": {"lease_ms": N} sets L (each node's row says it), and a
#   bad value is refused with its place;
# - a node stopped cleanly keeps its row as "stopped", with when, and is
#   no problem (exit 0), also on its own node; started again it stands
#   by in the same row;
# - run from a host that is no node: "this host is not a node", no
#   problem;
# - the synchronous standby stopped: named as a problem, and the
#   leader's heartbeat (which writes its row) goes on;
# - no node left: "no node leads".
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"

L=3000		# LEADER_LEASE_MS

# st N [ARGS]: "sluice status ARGS" on node N: $OUT, $ERR, $RC.
st() {
	_n=$1; shift
	cl_sluice "$_n" status "$@" >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/out")
	ERR=$(cat "$T_DIR/err")
}

# like_re TEXT ERE DESCRIPTION: a line of TEXT matches ERE.
like_re() {
	if printf '%s\n' "$1" | grep -Eq "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '#   got:  %s\n#   want a line matching: %s\n' "$1" "$2"
	fi
}

# pg_admin SQL: SQL as the superuser on database postgres (what cannot
# run on database sluice itself).
pg_admin() {
	pg_as "$PSQL" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 \
	    -p "$(pg_port primary)" -U postgres -d postgres -c "$1"
}

# jq1 PATH: one value of the last --json output.
jq1() {
	json_query "$OUT" "SELECT json_extract(j, '\$.$1') FROM d"
}

cl_setup
pg_standby || { echo "Bail out! the standby did not start"; exit 1; }
# The replication view is shown to members of pg_monitor (sluice(1)
# CLUSTER gives it to the roles that run status).
pg_sql "GRANT pg_monitor TO sluice_owner" >/dev/null

# A database of schema 17, as the sluice before the nodes table made it.
pg_sql "DROP TABLE nodes; UPDATE sluice_meta SET user_version = 17" >/dev/null
run_sluice init "$PG_DB"
expect_rc 0 "a PostgreSQL database of schema 17 upgrades"
is "$(pg_sql "SELECT user_version FROM sluice_meta")" 20 "to the newest schema"
is "$(pg_sql "SELECT count(*) FROM nodes")" 0 "with an empty nodes table"

cl_start_nodes
rows3() {
	[ "$(pg_sql "SELECT count(*) FROM nodes")" = 3 ]
}
wait_for 20 rows3
ok $? "each node writes its row"

st 2
expect_rc 0 "status on a standby of a healthy cluster exits 0"
like "$OUT" "leader    n1, epoch $epoch, pid $(node_pid 1), deadline in" \
    "it names the leader, its epoch, pid and deadline"
like_re "$OUT" "n1  leader   pid $(node_pid 1) +seen [0-9.]+ s ago" \
    "the leader's line"
like_re "$OUT" "n2  standby  pid $(node_pid 2) +seen [0-9.]+ s ago, up since .* \\(this node\\)\$" \
    "this node's line"
like "$OUT" "n3  standby  pid $(node_pid 3)" "the third node's line"
like "$OUT" "standby (streaming, sync)" "the synchronous standby"
like "$OUT" "problems  none" "no problem"
unlike "$OUT" "lock" "no lock file problem on PostgreSQL"

st 2 --json
expect_rc 0 "status --json exits 0"
is "$(jq1 cluster.leader.node)" n1 "--json: the leader's node"
is "$(jq1 cluster.leader.epoch)" "$epoch" "--json: its epoch"
is "$(jq1 cluster.node)" n2 "--json: this node"
is "$(json_query "$OUT" "SELECT group_concat(json_extract(value, '\$.name') || ':' || json_extract(value, '\$.role') || ':' || json_extract(value, '\$.lease_ms'), ' ') FROM d, json_each(json_extract(j, '\$.cluster.nodes'))")" \
    "n1:leader:$L n2:standby:$L n3:standby:$L" "--json: the three nodes, roles and L"
is "$(jq1 engine.running)" 1 "--json: an engine runs (a node leads)"
is "$(jq1 'problems')" "[]" "--json: no problem"

# A standby killed: after 3×L it is a problem, also on its own node.
n3pid=$(node_pid 3)
kill -9 "$n3pid"
sleep $(( (3 * L) / 1000 + 2 ))
st 1
expect_rc 1 "a node unseen for over 3×L: status exits 1"
like_re "$OUT" "node n3 \\(standby, pid $n3pid\\) not seen for [0-9.]+ s, over 3 leases \\(9.0 s\\)" \
    "it names the node"
st 1 --json
is "$(json_query "$OUT" "SELECT json_extract(value, '\$.stale') FROM d, json_each(json_extract(j, '\$.cluster.nodes')) WHERE json_extract(value, '\$.name') = 'n3'")" \
    1 "--json: the node is stale"
st 3
expect_rc 1 "status on the dead node exits 1"
like "$OUT" "this node's engine (n3) is not running" "it says its engine is not running"

# A standby's lock session lost, and no new connection for a while: it
# says so once, keeps trying, and stands by again.
pg_admin "ALTER DATABASE sluice ALLOW_CONNECTIONS false" >/dev/null
pg_admin "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
    WHERE datname = 'sluice' AND (query LIKE '%pg_try_advisory_lock%'
    OR query LIKE '%INSERT INTO nodes%') AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory')" >/dev/null
lost2() {
	grep -q "standing by: cannot reach the database: .*; trying again$" "$T_DIR/n2.err"
}
wait_for 5 lost2
ok $? "the standby says it lost the database"
sleep 2
kill -0 "$(node_pid 2)"
ok $? "it does not exit"
is "$(grep -c "cannot reach the database" "$T_DIR/n2.err")" 1 "it says so once while it retries"
pg_admin "ALTER DATABASE sluice ALLOW_CONNECTIONS true" >/dev/null
back2() {
	grep -q "answers again" "$T_DIR/n2.err"
}
wait_for 10 back2
ok $? "it says when the database answers again"

# The lease from the site config: each node's row says it; bad is refused.
echo '{"cluster": {"lease_ms": 2000}}' >"$SLUICE_SITE_CONFIG"
node_start 3
seen3() {
	[ "$(pg_sql "SELECT lease_ms FROM nodes WHERE name = 'n3'")" = 2000 ]
}
wait_for 20 seen3
ok $? "cluster.lease_ms sets a node's L"
# engine_refused: an engine that must refuse its config (20 s at most).
engine_refused() {
	timeout 20 "$SLUICE" --db "$PG_DB" engine >/dev/null 2>"$T_DIR/err" \
	    </dev/null
	RC=$?
	ERR=$(cat "$T_DIR/err")
}
echo '{"cluster": {"lease_ms": 10}}' >"$SLUICE_SITE_CONFIG"
engine_refused
expect_rc 2 "a lease too short is refused"
like "$ERR" "site-config.json: \$.cluster.lease_ms: expected a whole number of ms from 1000" \
    "with its place"
echo '{"cluster": {"lease": 3000}}' >"$SLUICE_SITE_CONFIG"
engine_refused
expect_rc 2 "an unknown cluster key is refused"
like "$ERR" "\$.cluster.lease: unknown key" "with its place"
rm -f "$SLUICE_SITE_CONFIG"

# A node stopped on purpose: its row stays, "stopped", and is no problem.
n3pid=$(node_pid 3)
kill -TERM "$n3pid"
wait "$n3pid"
is "$?" 0 "n3's engine stops cleanly on SIGTERM"
st 1
expect_rc 0 "a node stopped on purpose: status exits 0"
like_re "$OUT" "n3  stopped  pid $n3pid +stopped [0-9.]+ s ago, at [0-9]" \
    "it shows the node as stopped, and when"
like "$OUT" "problems  none" "  and finds no problem"
st 1 --json
stopped3() {
	json_query "$OUT" "SELECT json_extract(value, '\$.$1') FROM d, json_each(json_extract(j, '\$.cluster.nodes')) WHERE json_extract(value, '\$.name') = 'n3'"
}
is "$(stopped3 role):$(stopped3 stale):$(stopped3 pid)" "stopped:0:$n3pid" \
    "--json: role stopped, not stale, its last pid"
like_re "$(stopped3 stopped_at)" "^[0-9]{4}-" "--json: stopped_at"
is "$(jq1 'problems')" "[]" "--json: no problem"
st 3
expect_rc 0 "status on the stopped node itself exits 0"
unlike "$OUT" "is not running" "  without saying its engine is not running"
like "$OUT" "(this node)" "  and names it as this node"
node_start 3
seen3b() {
	[ "$(pg_sql "SELECT role || ':' || pid FROM nodes WHERE name = 'n3'")" = "standby:$(node_pid 3)" ]
}
wait_for 20 seen3b
ok $? "started again, n3's row says standby, with its new pid"

# A host that is no node (a monitoring host): no row of its name, no
# socket.  Said, and no problem.
not_a_node() {
	SLUICE_NODE=monitor SLUICE_SOCKET="$T_DIR/none.sock" "$SLUICE" \
	    --db "$NODE_DB_1" status "$@" >"$T_DIR/out" 2>"$T_DIR/err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/out")
}
not_a_node
expect_rc 0 "status from a host that is no node exits 0"
like "$OUT" "this host is not a node (none is named monitor)" "  and says so"
unlike "$OUT" "is not running" "  not that its engine is not running"
not_a_node --json
is "$(jq1 cluster.is_node):$(jq1 cluster.node)" "0:monitor" "--json: is_node false"
is "$(jq1 'problems')" "[]" "--json: no problem"

# The synchronous standby stopped (last: commits wait for it from now
# on): named; the leader's heartbeat goes on.
pg_stop standby
st 2
expect_rc 1 "no standby: status exits 1"
like "$OUT" "no standby streams from the primary" "the missing standby is named"
sleep $(( (2 * L) / 1000 ))
st 2 --json
is "$(jq1 cluster.leader.node):$(jq1 cluster.leader.epoch)" "n1:$epoch" \
    "the leader still leads, its heartbeat not held up by the standby"
n1_age=$(json_query "$OUT" "SELECT json_extract(value, '\$.seen_ms_ago') FROM d, json_each(json_extract(j, '\$.cluster.nodes')) WHERE json_extract(value, '\$.name') = 'n1'")
ok $(( ${n1_age:-99999} > L )) "and its row is fresh (seen ${n1_age:-?} ms ago)"

# No node left: no leader.
kill -9 "$(node_pid 1)" "$(node_pid 2)" "$(node_pid 3)"
sleep 0.5
st 1
expect_rc 1 "no node left: status exits 1"
like "$OUT" "no node leads" "it says no node leads"
like "$OUT" "leader    none" "and shows no leader"

done_testing
