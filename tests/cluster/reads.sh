#!/bin/sh
# reads.sh: every cluster node's socket answers members' reads from
# PostgreSQL (SPEC §14, sluice(1) CLUSTER), on a read connection of its
# own that logs in as the site config's cluster.reader.  A real member
# account (useradd) with no PostgreSQL login of its own:
#
# - list, show and log --json through the leader's socket and through a
#   standby's equal the owner's direct reads, over more rows than one
#   page;
# - a write, pg_terminate_backend, set_config('role'), an advisory lock
#   and a second statement are refused, each with one line, and nothing
#   changes (the engine's sessions are all still there);
# - a reader login that may write is refused for members' reads;
# - a standby keeps answering reads while no leader exists (the leader
#   frozen, then killed);
# - a cursor left unread is closed (its transaction ends).
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/pg-lib.sh"
. "$TOP_SRCDIR/tests/cluster/cluster-lib.sh"
. "$TOP_SRCDIR/tests/screen-lib.sh"

cl_account rdm

# The member runs it: the system's python3, not one in root's home.
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "needs /usr/bin/python3 for a raw socket client"


cl_setup
# The member's name for the database: no user=, so libpq logs in as the
# member's own name, which has no role.
MEMBER_DB="postgresql:host=127.0.0.1 port=$(pg_port primary) dbname=sluice"
printf '{"cluster": {"reader": "%s"}}\n' "$PG_READER_DB" >"$T_DIR/site.json"
chmod 0644 "$T_DIR/site.json"
SLUICE_SITE_CONFIG="$T_DIR/site.json"
export SLUICE_SITE_CONFIG

# member N ARGS...: sluice as the member on node N's socket; $RC, $OUT,
# $ERR.
member() {
	_n=$1; shift
	cl_member "$MEMBER" "$MEMBER_DB" "$_n" "$@"
}

# open_sock N: node N's socket, once there, the member's to connect to.
open_sock() {
	cl_open_sock "$1" "$MEMBER"
}

# raw N SQL: one read request on node N's socket as the member; the
# answer's line.
raw() {
	setpriv --reuid="$MEMBER" --regid="$MEMBER" --init-groups "$PY" -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall((json.dumps({"command": "read", "sql": sys.argv[2],
    "values": []}) + "\n").encode())
print(s.makefile("rb").readline().decode().strip())
' "$T_DIR/n$1.sock" "$2"
}

# pages N SQL: read SQL on node N's socket to its end as the member:
# "pages P rows R sum S".
pages() {
	setpriv --reuid="$MEMBER" --regid="$MEMBER" --init-groups "$PY" -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rb")
req = {"command": "read", "sql": sys.argv[2], "values": []}
pages = rows = total = 0
while True:
    s.sendall((json.dumps(req) + "\n").encode())
    a = json.loads(f.readline())
    if a.get("code") != 0:
        print("refused", a.get("message")); sys.exit(0)
    pages += 1
    rows += len(a["rows"])
    total += sum(r[0] for r in a["rows"])
    if not a.get("more"):
        break
    req = {"command": "read-next"}
print("pages %d rows %d sum %d" % (pages, rows, total))
' "$T_DIR/n$1.sock" "$2"
}

# interleaved N: two reads of 250 rows on node N's socket, each on a
# connection of its own, their pages asked in turn: "A B" row counts.
interleaved() {
	setpriv --reuid="$MEMBER" --regid="$MEMBER" --init-groups "$PY" -c '
import json, socket, sys
def conn():
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    return s, s.makefile("rb")
def ask(c, req):
    c[0].sendall((json.dumps(req) + "\n").encode())
    return json.loads(c[1].readline())
a, b = conn(), conn()
sql = "SELECT g FROM generate_series(1, 250) AS g"
got = {"a": 0, "b": 0}
more = {}
for name, c in (("a", a), ("b", b)):
    r = ask(c, {"command": "read", "sql": sql, "values": []})
    got[name] += len(r.get("rows", []))
    more[name] = r.get("more", False)
while more["a"] or more["b"]:
    for name, c in (("a", a), ("b", b)):
        if more[name]:
            r = ask(c, {"command": "read-next"})
            got[name] += len(r.get("rows", []))
            more[name] = r.get("more", False)
print(got["a"], got["b"])
' "$T_DIR/n$1.sock"
}

# lead_now: the live node with the highest epoch: "N EPOCH".
lead_now() {
	_best=""; _be=0
	for _n in 1 2 3; do
		_e=$(node_epoch "$_n")
		[ -n "$(node_pid "$_n")" ] &&
		    kill -0 "$(node_pid "$_n")" 2>/dev/null &&
		    [ "$_e" -gt "$_be" ] && { _best=$_n; _be=$_e; }
	done
	echo "$_best $_be"
}

# standby_other N...: a node that is none of those named.
standby_other() {
	for _n in 1 2 3; do
		case " $* " in *" $_n "*) ;; *) echo "$_n"; return ;; esac
	done
}

# engine_sessions: the engines' sessions on the primary (pid list).
engine_sessions() {
	pg_sql "SELECT string_agg(pid::text, ' ' ORDER BY pid)
	    FROM pg_stat_activity WHERE usename = 'sluice_owner'"
}

# A bad cluster.reader is refused with its place, and nothing starts.
printf '{"cluster": {"reader": "/var/lib/sluice/sluice.db"}}\n' >"$T_DIR/bad.json"
SLUICE_SITE_CONFIG="$T_DIR/bad.json" timeout 20 "$SLUICE" --db "$PG_DB" \
    engine >/dev/null 2>"$T_DIR/bad.err"
is "$?" 2 "a cluster.reader that is not a postgresql: name is refused"
like "$(cat "$T_DIR/bad.err")" "bad.json: \$.cluster.reader: expected the reader's login" \
    "  with its place ($(cat "$T_DIR/bad.err"))"

cl_start_nodes
for n in 1 2 3; do open_sock $n; done

# --- the member has no login: a direct read fails ---------------------------
setpriv --reuid="$MEMBER" --regid="$MEMBER" --init-groups env HOME="$T_DIR" \
    SLUICE_SOCKET="$T_DIR/none.sock" "$SLUICE" --db "$MEMBER_DB" list \
    >/dev/null 2>"$T_DIR/direct.err"
is "$?" 1 "without an engine's socket the member cannot read"
like "$(cat "$T_DIR/direct.err")" "no engine answers on this node" \
    "  saying why in one line ($(head -c 160 "$T_DIR/direct.err"))"
is "$(wc -l <"$T_DIR/direct.err" | tr -d ' ')" 1 "  one line"

# --- data: runs, and a step with many lines --------------------------------
cat >"$T_DIR/one.json" <<'JSON'
{"hello": {"shell": "echo hello"}}
JSON
cat >"$T_DIR/lines.json" <<'JSON'
{"many": {"shell": "i=0; while [ $i -lt 400 ]; do echo line $i; i=$((i+1)); done"}}
JSON
chmod 0644 "$T_DIR/one.json" "$T_DIR/lines.json"
i=0
while [ $i -lt 30 ]; do
	cl_sluice 1 run "$T_DIR/one.json" >/dev/null || break
	i=$((i + 1))
done
is "$i" 30 "30 runs started through node 1"
wf=$(cl_sluice 1 run "$T_DIR/lines.json" 2>/dev/null | head -1)
many=$(pg_sql "SELECT id FROM workflow_steps WHERE name = 'many'
    ORDER BY id DESC LIMIT 1")
i=0
while [ "$(pg_sql "SELECT count(*) FROM workflows WHERE status
    NOT IN ('completed', 'failed', 'cancelled')")" != 0 ] && [ $i -lt 400 ]; do
	sleep 0.05; i=$((i + 1))
done
is "$(pg_sql "SELECT count(*) FROM workflows WHERE status = 'completed'")" \
    31 "every run completed"
# The nodes as they are now (a loaded host may have seen a takeover).
set -- $(lead_now)
LEAD=${1:-1}
SB=$(standby_other "$LEAD")
echo "# node $LEAD leads, node $SB stands by"

# --- paging: more rows than one page, one snapshot --------------------------
a=$(pages "$LEAD" "SELECT g FROM generate_series(1, 250) AS g")
is "$a" "pages 3 rows 250 sum 31375" \
    "a read of 250 rows comes in pages of 100 ($a)"

is "$(interleaved "$SB")" "250 250" \
    "two paged reads at once on one node each get all their rows"

# --- the member's reads equal the owner's, on the leader and a standby ------
for n in $LEAD $SB; do
	cl_sluice 1 list --limit 500 --json >"$T_DIR/owner.list"
	member $n list --limit 500 --json
	is "$RC" 0 "list --json through node $n's socket ($(echo "$ERR" | head -1))"
	ok "$([ "$(echo "$OUT" | grep -c '"id"')" -ge 31 ] &&
	    [ "$OUT" = "$(cat "$T_DIR/owner.list")" ] && echo 0 || echo 1)" \
	    "  equals the owner's direct read ($(echo "$OUT" | grep -c '"id"') lines with an id)"
	cl_sluice 1 show "$wf" --json >"$T_DIR/owner.show"
	member $n show "$wf" --json
	ok "$([ "$RC" = 0 ] && [ -n "$OUT" ] &&
	    [ "$OUT" = "$(cat "$T_DIR/owner.show")" ] && echo 0 || echo 1)" \
	    "show --json through node $n equals the owner's"
	cl_sluice 1 log "$many" --json >"$T_DIR/owner.log"
	member $n log "$many" --json
	ok "$([ "$RC" = 0 ] && echo "$OUT" | grep -q 'line 399' &&
	    [ "$OUT" = "$(cat "$T_DIR/owner.log")" ] && echo 0 || echo 1)" \
	    "log --json through node $n equals the owner's (400 lines)"
done
member "$SB" audit --verify
is "$RC" 0 "audit --verify through standby n$SB"
like "$OUT" "audit trail intact" "  finds the trail intact"
"$SLUICE" --db "$PG_READER_DB" status >/dev/null 2>&1
orc=$?
member "$SB" status
is "$RC" "$orc" "status through standby n$SB exits as reader1's direct one ($orc)"
ok "$(echo "$OUT" | grep -Eq "^leader +n$LEAD, epoch" && echo 0 || echo 1)" \
    "  and shows the cluster: the leader"
ok "$(echo "$OUT" | grep -Eq "n$SB +standby" && echo 0 || echo 1)" \
    "  and the nodes"
is "$(pg_sql "SELECT count(*) FROM pg_stat_activity
    WHERE application_name = 'sluice reader' AND usename = 'reader1'")" 2 \
    "the two nodes read as reader1, on a connection each"

# A member's console on a standby: the leader in its header, the runs,
# and a new one as it is committed (its script's files the member's too).
umask 000
scr_start_cmd 140x20 -- setpriv --reuid="$MEMBER" --regid="$MEMBER" \
    --init-groups env SLUICE_SOCKET="$T_DIR/n$SB.sock" HOME="$T_DIR" \
    "$SLUICE" --db "$MEMBER_DB"
umask 022
scr_ok "leader n$LEAD, epoch" "a member's console on standby n$SB names the leader" 20
scr_ok "lines" "  and lists the runs" 20
cp "$T_DIR/one.json" "$T_DIR/fresh.json"
chmod 0644 "$T_DIR/fresh.json"
cl_sluice 1 run "$T_DIR/fresh.json" >/dev/null
scr_ok "fresh" "  and shows a run started meanwhile" 20
scr_stop
is "$SCR_STATUS" 0 "  and quits cleanly"

# Figures only (bench/ owns goals): a member's list beside the owner's.
t0=$(now_ms)
for i in 1 2 3 4 5 6 7 8 9 10; do member "$SB" list --json; done
t1=$(now_ms)
for i in 1 2 3 4 5 6 7 8 9 10; do cl_sluice 1 list --json >/dev/null; done
t2=$(now_ms)
echo "# list --json: $(( (t1 - t0) / 10 )) ms through standby n$SB's socket, $(( (t2 - t1) / 10 )) ms direct as the owner (loaded host: $(cut -d' ' -f1 /proc/loadavg))"

# --- the guard --------------------------------------------------------------
before=$(engine_sessions)
nwf=$(pg_sql "SELECT count(*) FROM workflows")
for sql in \
    "DELETE FROM workflows" \
    "WITH d AS (DELETE FROM workflows RETURNING id) SELECT id FROM d" \
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'sluice_owner'" \
    "SELECT pg_cancel_backend(pid) FROM pg_stat_activity" \
    "SELECT set_config('role', 'sluice_owner', false)" \
    "SELECT pg_advisory_lock(1936484707)" \
    "SELECT 1; DELETE FROM workflows" \
    "SELECT query_to_xml('DELETE FROM workflows', true, true, '')" \
    "SELECT pg_sleep(60)" \
    "LISTEN sluice" \
    "COPY workflows TO STDOUT" \
    "DO 'BEGIN DELETE FROM workflows; END'" \
    "SELECT * FROM workflows FOR UPDATE" \
    "SELECT \"pg_sleep\"(30)" \
    "SELECT \$\$'\$\$ AS a, pg_sleep(30) AS b, \$\$'\$\$ AS c" \
    "SELECT E'\\'' AS a, pg_terminate_backend(1) AS b, '' AS c" \
    "SELECT /* ' */ pg_sleep(30) /* ' */"; do
	a=$(raw "$LEAD" "$sql")
	like "$a" '"code":1' "refused: $sql"
	ok "$(echo "$a" | grep -q '"message":"[^"]*"' &&
	    [ "$(echo "$a" | wc -l)" = 1 ] && echo 0 || echo 1)" \
	    "  with one line: $(echo "$a" | sed 's/.*"message":"\([^"]*\)".*/\1/')"
done
a=$(raw "$LEAD" "SELECT count(*) FROM generate_series(1, 1000000000)")
like "$a" "read stopped: a page took more than 250 ms" \
    "a read that takes too long is stopped, in one line"
is "$(pg_sql "SELECT count(*) FROM workflows")" "$nwf" "no run was deleted"
is "$(engine_sessions)" "$before" \
    "the engines' sessions are all still there (pg_stat_activity)"
is "$(node_epoch "$LEAD")" "$(lead_now | cut -d' ' -f2)" \
    "node $LEAD still leads, in the same epoch"
is "$(pg_sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
    AND pid IN (SELECT pid FROM pg_stat_activity
    WHERE application_name = 'sluice reader')")" 0 \
    "the reader holds no advisory lock"
a=$(raw "$LEAD" "SELECT count(*) FROM workflows")
is "$a" "{\"code\":0,\"rows\":[[$nwf]]}" "a plain read still answers"

# --- the console's change counter, and a session the server ended ---------
v1=$(raw "$LEAD" "PRAGMA data_version")
cl_sluice 1 run "$T_DIR/one.json" >/dev/null
v2=$(raw "$LEAD" "PRAGMA data_version")
ok "$(echo "$v1" | grep -q '"rows":\[\[[0-9]' && [ "$v1" != "$v2" ] &&
    echo 0 || echo 1)" \
    "PRAGMA data_version (the console's change counter) moves with a commit ($v1, $v2)"
pg_sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE application_name = 'sluice reader'" >/dev/null
member "$SB" list --limit 5 --json
is "$RC" 0 "a reader's session the server ended is made again at the next read ($ERR)"
nwf=$(pg_sql "SELECT count(*) FROM workflows")

# --- a reader's login that may write is refused ----------------------------
printf '{"cluster": {"reader": "%s"}}\n' "$PG_DB" >"$T_DIR/site-owner.json"
chmod 0644 "$T_DIR/site-owner.json"
W=$(standby_other "$LEAD" "$SB")
kill -9 "$(node_pid "$W")"
mv "$T_DIR/n$W.err" "$T_DIR/n$W.err.old"
SLUICE_SITE_CONFIG="$T_DIR/site-owner.json" node_start "$W"
standing_by "$W"
open_sock "$W"
member "$W" list --json
is "$RC" 1 "reads on a node whose reader may write are refused"
like "$ERR" "may do more than read" "  saying why ($ERR)"
kill -9 "$(node_pid "$W")"
mv "$T_DIR/n$W.err" "$T_DIR/n$W.err.owner"
echo '{}' >"$T_DIR/site-none.json"
chmod 0644 "$T_DIR/site-none.json"
SLUICE_SITE_CONFIG="$T_DIR/site-none.json" node_start "$W"
standing_by "$W"
open_sock "$W"
member "$W" list --json
is "$RC" 1 "reads on a node with no cluster.reader are refused"
like "$ERR" "members' reads need the reader's login on this node: set the site config's cluster.reader" \
    "  saying what to set ($ERR)"
kill -9 "$(node_pid "$W")"
mv "$T_DIR/n$W.err" "$T_DIR/n$W.err.none"
node_start "$W"
standing_by "$W"
open_sock "$W"

# --- a cursor left unread is closed -----------------------------------------
setpriv --reuid="$MEMBER" --regid="$MEMBER" --init-groups "$PY" -c '
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"{\"command\": \"read\", \"sql\": \"SELECT generate_series(1, 500)\"}\n")
a = json.loads(s.makefile("rb").readline())
print("more" if a.get("more") else "all")
sys.stdout.flush()
time.sleep(4)
' "$T_DIR/n$SB.sock" >"$T_DIR/idle.out" &
ipid=$!
i=0
while [ ! -s "$T_DIR/idle.out" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
is "$(cat "$T_DIR/idle.out")" more "a read with more rows than a page"
is "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name =
    'sluice reader' AND state = 'idle in transaction'")" 1 \
    "  holds its snapshot while it is read"
sleep 2.5
is "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name =
    'sluice reader' AND state = 'idle in transaction'")" 0 \
    "  and lets go of it once left unread for 2 s"
wait "$ipid"

# --- a standby answers while no leader exists -------------------------------
ep=$(node_epoch "$LEAD")
kill -STOP "$(node_pid "$LEAD")"
t0=$(now_ms)
n=0; good=0
while [ $(( $(now_ms) - t0 )) -lt 2000 ]; do
	member "$SB" list --limit 5 --json
	n=$((n + 1))
	[ "$RC" = 0 ] && echo "$OUT" | grep -q '"id"' && good=$((good + 1))
done
is "$good" "$n" "with the leader frozen (no leader for L), standby n$SB answered $good of $n reads"
kill -9 "$(node_pid "$LEAD")"
member "$SB" list --limit 5 --json
is "$RC" 0 "and with the leader killed"
set -- $(leader_wait $((ep + 1)) 20000)
ok "$([ -n "${1:-}" ] && echo 0 || echo 1)" "node ${1:-?} took over (epoch ${2:-?})"
member "${1:-$SB}" list --limit 500 --json
is "$RC" 0 "the new leader's socket answers reads"
like "$OUT" "\"id\"" "  with the runs"

cl_done
