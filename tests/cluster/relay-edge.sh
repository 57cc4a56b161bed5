#!/bin/sh
# relay-edge.sh: the edges of relaying commands through a standby
# (SPEC §14, sluice(1) CLUSTER "Nodes").  A primary with a synchronous
# standby; nodes with a long lease (cluster.lease_ms 20000), so a frozen
# leader keeps its lock past a relayed command's 8 s wait:
#
# - the leader frozen between turns: an approval through a standby is
#   answered "not applied ... withdrawn" at 8 s, its inbox row is
#   refused, and the leader woken (SIGCONT) never applies it; given
#   again, it applies once;
# - the leader frozen inside the turn that took the relayed approval
#   (SLUICE_TEST_HOLD=inbox): the standby cannot withdraw it and says the
#   outcome is unknown and how to learn it; woken, the leader applies it
#   once and "sluice request ID" says applied;
# - secret inputs are refused in cluster mode, through a standby's
#   socket, the leader's and with no socket (a takeover would lose
#   them), and the value is in no file sluice or PostgreSQL wrote (a
#   plain input relayed the same way is found there: the search reaches
#   the data) and in no output;
# - after commands relayed from every node, "sluice status" on each finds
#   no audit problem and "audit --verify" is clean;
# - a relayed uid that names another account on the leader (a node in a
#   mount namespace with an /etc/passwd of its own) is refused, saying
#   so, and recorded, and status names it as a problem.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"

echo '{"cluster": {"lease_ms": 20000}}' >"$SLUICE_SITE_CONFIG"

# gate_on N: a run of gate.json started on node N, its gate waiting: in
# $wf and $ask (one check).
gate_on() {
	wf=$(cl_sluice "$1" run "$T_DIR/gate.json")
	ask=$(step_of "$wf" ask)
	wait_for pg_is "SELECT status FROM workflow_steps WHERE id = $ask" waiting
	ok $? "a gate waits (node n$1, run $wf, step $ask)"
}

# on N ARGS...: sluice on node N; $RC, $OUT, $ERR, and its seconds in $SECS.
on() {
	_t0=$(now_ms)
	cl_sluice "$@" >"$T_DIR/c.out" 2>"$T_DIR/c.err" </dev/null
	RC=$?
	SECS=$(( ($(now_ms) - _t0) / 1000 ))
	OUT=$(cat "$T_DIR/c.out")
	ERR=$(cat "$T_DIR/c.err")
}

# stood_by_again N BEFORE: node N has said "standing by" more than BEFORE
# times (its log's count before a restart).
stood_by_again() {
	[ "$(grep -c "standing by" "$T_DIR/n$1.err")" -gt "$2" ]
}

# stopped PID: the process is stopped (SIGSTOP).
stopped() {
	[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = T ]
}

cat >"$T_DIR/gate.json" <<JSON
{
 "ask": {"gate": {"message": "go on?"}, "next": "after"},
 "after": {"shell": "echo after:\$SLUICE_WORKFLOW_ID >> $T_DIR/ledger"}
}
JSON
: >"$T_DIR/ledger"

cl_setup standby
node_start 1
set -- $(leader_wait 1 20000)
is "${1:-}" 1 "n1 leads"
SLUICE_TEST_HOLD=inbox
export SLUICE_TEST_HOLD
node_start 2		# once it leads, stops itself in its first inbox turn
unset SLUICE_TEST_HOLD
standing_by 2
ok $? "n2 stands by (lease 20 s)"

# --- the leader frozen between turns: withdrawn, never applied ---------------
gate_on 1
kill -STOP "$(node_pid 1)"
on 2 approve "$ask" -m "while n1 is frozen"
is "$RC" 1 "an approval through n2 while the leader is frozen: exit 1 after ${SECS} s"
like "$ERR" "not applied: no leader answered within 8 s" "  not applied"
like "$ERR" "was withdrawn and no leader will apply it" "  withdrawn ($ERR)"
is "$(pg_sql "SELECT state FROM inbox WHERE step_id = $ask AND node = 'n2'")" \
    refused "its inbox row is refused"
req=$(pg_sql "SELECT request FROM inbox WHERE step_id = $ask AND node = 'n2'")
like "$ERR" "request $req" "  the line names the request ($req)"
kill -CONT "$(node_pid 1)"
# The leader heard the NOTIFY while frozen: its next turn reads the inbox;
# a start through it is one more turn, and ENGINE_POLL_MS (5 s) passes.
cl_sluice 1 run "$T_DIR/gate.json" >/dev/null
sleep 6
is "$(pg_sql "SELECT count(*) FROM approvals WHERE step_id = $ask")" 0 \
    "woken, the leader did not apply the withdrawn approval"
is "$(pg_sql "SELECT status FROM workflow_steps WHERE id = $ask")" waiting \
    "  the gate still waits"
is "$(grep -c "^after:$wf\$" "$T_DIR/ledger")" 0 "  the next step never ran"
on 2 request "$req"
is "$RC" 1 "'sluice request $req' on n2: not applied"
like "$OUT" "request $req: not applied" "  in words ($OUT)"
on 2 approve "$ask" -m "again, n1 awake"
is "$RC" 0 "given again through n2, it is applied ($ERR)"
wait_for pg_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $wf
    AND name = 'after' AND status = 'done'" 1
ok $? "  the next step ran"
is "$(pg_sql "SELECT count(*) || ' ' || max(comment) FROM approvals
    WHERE step_id = $ask")" "1 again, n1 awake" "  one approval, the second"
is "$(grep -c "^after:$wf\$" "$T_DIR/ledger")" 1 "  once"

# --- the leader frozen inside the turn that took it: the outcome unknown -----
kill -TERM "$(node_pid 1)"
set -- $(leader_wait 2 30000)
is "${1:-}" 2 "n1 stopped: n2 leads"
node_start 3
standing_by 3
ok $? "n3 stands by"
gate_on 2
wf2=$wf ask2=$ask
on 3 approve "$ask2" -m "while n2 holds its turn"
is "$RC" 1 "an approval through n3 that n2's frozen turn took: exit 1 after ${SECS} s"
like "$ERR" "could not be withdrawn" "  not withdrawn"
like "$ERR" "whether it is applied is unknown" "  the outcome unknown"
req2=$(pg_sql "SELECT request FROM inbox WHERE step_id = $ask2 AND node = 'n3'")
like "$ERR" "'sluice request $req2' on any node tells" "  and how to learn it ($ERR)"
wait_for stopped "$(node_pid 2)"
ok $? "n2 is held in its turn"
is "$(pg_sql "SELECT state FROM inbox WHERE step_id = $ask2 AND node = 'n3'")" \
    new "the row stays for the turn that has it"
kill -CONT "$(node_pid 2)"
wait_for pg_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $wf2
    AND name = 'after' AND status = 'done'" 1
ok $? "woken, n2 applies it and the run goes on"
is "$(pg_sql "SELECT count(*) FROM approvals WHERE step_id = $ask2")" 1 \
    "  once"
on 3 request "$req2"
is "$RC" 0 "'sluice request $req2' on n3 says applied"
like "$OUT" "request $req2: applied" "  in words ($OUT)"

# --- secret inputs are not relayed, and leave no trace -----------------------
before=$(grep -c "standing by" "$T_DIR/n1.err")
node_start 1
wait_for stood_by_again 1 "$before"
ok $? "n1 stands by again"
SECRET="sekr1t-$$-Qz8"
PLAIN="plain-$$-Wv3"
printf '%s\n' "$SECRET" >"$T_DIR/pw.txt"
cat >"$T_DIR/sec.json" <<'JSON'
{"inputs": {"pw": {"secret": true, "required": true}},
 "flow": {"start": {"shell": "test -n \"$P\"", "env": {"P": "{{input.pw}}"}}}}
JSON
cat >"$T_DIR/plain.json" <<'JSON'
{"inputs": {"who": {}},
 "flow": {"start": {"shell": "true", "env": {"W": "{{input.who}}"}}}}
JSON
runs=$(pg_sql "SELECT count(*) FROM workflows")
on 3 run "$T_DIR/sec.json" -i "pw=@$T_DIR/pw.txt"
is "$RC" 4 "a secret input through standby n3 is refused (exit 4)"
like "$ERR" "secret inputs are refused in cluster mode" "  saying why"
like "$ERR" "a node taking over would not have them" "  ($ERR)"
printf '%s\n' "$SECRET" | on 3 run "$T_DIR/sec.json" -i pw=@-
is "$RC" 4 "  from standard input too"
on 2 run "$T_DIR/sec.json" -i "pw=@$T_DIR/pw.txt"
is "$RC" 4 "on the leader n2 too (it would keep it on its disk alone)"
like "$ERR" "secret inputs are refused in cluster mode" "  saying why"
SLUICE_SOCKET="$T_DIR/none.sock" "$SLUICE" --db "$NODE_DB_3" run \
    "$T_DIR/sec.json" -i "pw=@$T_DIR/pw.txt" >"$T_DIR/c.out" 2>"$T_DIR/c.err"
ok $(($? == 0)) "with no socket answering, it is refused too"
like "$(cat "$T_DIR/c.err")" "secret inputs are refused in cluster mode" \
    "  saying why"
is "$(pg_sql "SELECT count(*) FROM workflows")" "$runs" "  no run was recorded"
is "$(find "$T_DIR" -name '*.secrets' | wc -l)" 0 "  and no node kept a file of secret inputs"
on 3 run "$T_DIR/plain.json" -i "who=$PLAIN"
is "$RC" 0 "a plain input through n3 is relayed"
rm -f "$T_DIR/pw.txt"
pg_sql "CHECKPOINT" >/dev/null
pg_sql standby "CHECKPOINT" >/dev/null 2>&1
# Every file but the flows (which name no value): PostgreSQL's data
# directories (tables, WAL) and logs, the nodes' logs and directories,
# the clients' output.
hits() {
	grep -rla -- "$1" "$T_DIR" 2>/dev/null | grep -v '\.json$'
}
ok "$([ -n "$(hits "$PLAIN")" ] && echo 0 || echo 1)" \
    "the search finds the relayed plain input ($(hits "$PLAIN" | wc -l) files)"
is "$(hits "$SECRET")" "" "the secret value is in no file sluice or PostgreSQL wrote"

# --- the audit trail after relayed commands from every node ------------------
on 1 run "$T_DIR/plain.json" -i who=n1
is "$RC" 0 "a start relayed through n1"
on 2 run "$T_DIR/plain.json" -i who=n2
is "$RC" 0 "a start on the leader n2"
is "$(pg_sql "SELECT string_agg(DISTINCT node, ' ' ORDER BY node) FROM audit
    WHERE node IS NOT NULL")" "n1 n2 n3" "audit rows came through every node"
for n in 1 2 3; do
	on $n status
	unlike "$OUT$ERR" "audit" "status on n$n finds no audit problem"
done
on 1 audit --verify
is "$RC" 0 "audit --verify is clean"
like "$OUT" "audit trail intact" "  the chain holds ($OUT)"
on 3 audit
like "$OUT" "on n3" "audit names the node a command came through"

# --- a relayed uid that names another account on the leader ----------------
# n1 leads again with accounts of its own (a mount namespace whose
# /etc/passwd calls uid 0 "toor"): uid 0 relayed through n3 as root is
# refused, saying why, and recorded; nothing is decided as "toor".
# The namespace gets a copy of the whole of /etc, not of the one file: a
# bind mount on /etc/passwd itself is detached (Linux does so when the
# file a mount sits on is renamed over in another namespace) as soon as
# a test running beside this one adds an account, and n1 would then see
# uid 0 as root again.
if unshare --mount true 2>/dev/null &&
    cp -a /etc "$T_DIR/etc.n1" 2>/dev/null; then
	sed 's/^root:/toor:/' /etc/passwd >"$T_DIR/etc.n1/passwd"
	# No copies of secrets the engine has no use for.
	rm -rf "$T_DIR/etc.n1/shadow" "$T_DIR/etc.n1/gshadow" \
	    "$T_DIR/etc.n1/ssh" "$T_DIR/etc.n1/ssl/private"
	kill -TERM "$(node_pid 1)"
	wait "$(node_pid 1)" 2>/dev/null
	before=$(grep -c "standing by" "$T_DIR/n1.err")
	(cd "$T_DIR/n1" && SLUICE_SOCKET="$T_DIR/n1.sock" SLUICE_NODE=n1 \
	    exec unshare --mount sh -c \
	    'mount --bind "$0" /etc && exec "$@"' "$T_DIR/etc.n1" \
	    "$SLUICE" --db "$NODE_DB_1" engine 2>>"$T_DIR/n1.err") &
	NODE_PID_1=$!
	CL_PIDS="$CL_PIDS $!"
	kill -TERM "$(node_pid 3)"
	wait_for stood_by_again 1 "$before"
	ok $? "n1 stands by with accounts of its own"
	e2=$(node_epoch 2)
	kill -TERM "$(node_pid 2)"
	set -- $(leader_wait $((e2 + 1)) 30000)
	is "${1:-}" 1 "n1, whose accounts differ, leads"
	before=$(grep -c "standing by" "$T_DIR/n3.err")
	node_start 3
	wait_for stood_by_again 3 "$before"
	ok $? "n3 stands by again"
	gate_on 1
	ask5=$ask
	# The refusal is n1's to make: were the lease another node's by now
	# (n1 held up past it under load), that node, whose accounts are
	# the usual ones, would apply the approval.  So first who leads.
	is "$(pg_sql "SELECT epoch FROM engine")" "$(node_epoch 1)" \
	    "  n1 still leads (epoch $(node_epoch 1))"
	on 3 approve "$ask5" -m "as root on n3"
	is "$RC" 4 "an approval relayed from n3, where uid 0 is root, is refused"
	[ "$RC" = 4 ] || pg_sql "SELECT 'decided: ' || action || ' by ' ||
	    who || ' on ' || coalesce(node, '-') FROM audit
	    WHERE step_id = $ask5 UNION ALL SELECT 'epoch now ' || epoch
	    FROM engine" | sed 's/^/# /'
	like "$ERR" "uid 0 is root on node n3 but toor on this node (n1)" \
	    "  naming both accounts"
	like "$ERR" "every node must have the same accounts" "  and the rule ($ERR)"
	is "$(pg_sql "SELECT count(*) FROM approvals WHERE step_id = $ask5")" 0 \
	    "  nothing is decided"
	is "$(pg_sql "SELECT who || ' ' || node FROM audit
	    WHERE action = 'approve-refused' AND step_id = $ask5")" "root n3" \
	    "  the refusal is recorded as root on n3"
	on 3 status
	like "$OUT" "the leader refused 1 relayed command in the last day because nodes' accounts differ; the last: uid 0 is root on node n3" \
	    "status names the refusal as a problem"
	is "$RC" 1 "  (exit 1)"
	on 1 approve "$ask5" -m "as toor on n1"
	is "$RC" 0 "the same uid on the leader's own socket is decided there ($ERR)"
	on 3 audit --verify
	is "$RC" 0 "audit --verify is still clean"
else
	skip_cases 13 "unshare --mount is not allowed here, or /etc cannot be copied (a node with accounts of its own)"
fi

cl_done
