#!/bin/sh
# tests/cli/crash.sh: kill -9 the engine at random moments over many
# workflows (chains, a fan-out and its join, a branch), then let one engine
# drain them, and check against a ledger the steps themselves write (outside
# the database) that no step was lost, no completed step ran again, no two
# attempts of a step ran at once, and every workflow completed.  The left
# path runs a sub-workflow: each such run has exactly one child run, and
# the child's steps obey the same rules.  One
# workflow in three runs a for-each (six items in batches, two at once):
# each item is a step of its own for these checks, keyed by its label,
# and each ends done exactly once.
#
# Scale from the environment: CRASH_TRIALS kills (default 12),
# CRASH_WORKFLOWS workflows queued before the first (default 20),
# CRASH_PER_TRIAL more queued before each kill (default 3), CRASH_RUN_MS
# the longest an engine lives before its kill (default 400), CRASH_DRAIN_S
# the limit for the last drain (default 120).  bench/crash.sh runs it at
# full scale.

. "$TOP_SRCDIR/tests/lib.sh"

trials=${CRASH_TRIALS:-12}
workflows=${CRASH_WORKFLOWS:-20}
per_trial=${CRASH_PER_TRIAL:-3}
run_ms=${CRASH_RUN_MS:-400}
drain_s=${CRASH_DRAIN_S:-120}
for v in "$trials" "$workflows" "$per_trial" "$run_ms" "$drain_s"; do
	case $v in ''|*[!0-9]*) echo "Bail out! CRASH_* must be numbers"; exit 1 ;;
	esac
done
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

EPID=""
export SLUICE_KILL_GRACE_MS=200
trap 'cleanup' EXIT

# cleanup: stop an engine the test left, then remove the directory.
cleanup() {
	[ -n "$EPID" ] && kill -9 "$EPID" 2>/dev/null
	rm -rf "$T_DIR"
}

# wait_for CMD...: poll CMD every 20 ms for up to 10 s; 1 on the deadline.
wait_for() {
	_n=0
	while ! "$@" >/dev/null 2>&1; do
		_n=$((_n + 1))
		[ "$_n" -ge 500 ] && return 1
		sleep 0.02
	done
	return 0
}

# rand MAX: a random whole number from 0 to MAX.
rand() {
	_r=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	echo $((_r % ($1 + 1)))
}

# ms_to_s MS: MS milliseconds as seconds for sleep (e.g. 0.042).
ms_to_s() {
	printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
}

# started N: the ledger has more than N start lines (a step started).
started() {
	[ "$(grep -c '^start' "$ledger")" -gt "$1" ]
}

# queue N: record workflow N (no engine runs); one in three runs the
# for-each, the others go left (odd) or right.  A step the killed engine
# was starting may hold its socket for a moment (a vfork()ed child keeps
# the engine's descriptors until it execs): a run sent then is "not
# applied (nothing changed; give the command again)", and is given again,
# as the message asks.
queue() {
	_flow=flow
	if [ $(($1 % 3)) -eq 0 ]; then _pick=fe; _flow=fe
	elif [ $(($1 % 2)) -eq 1 ]; then _pick=left; else _pick=right; fi
	for _try in 1 2; do
		"$SLUICE" run "$T_DIR/$_flow.json" -i pick=$_pick \
		    --name "crash-$1" >/dev/null 2>"$T_DIR/run.err1" </dev/null &&
			return
		cat "$T_DIR/run.err1" >>"$T_DIR/run.err"
		grep -q 'not applied (nothing changed; give the command again)' \
		    "$T_DIR/run.err1" || break
	done
	echo "# queueing workflow $1 failed:" \
	    "$(tail -n 1 "$T_DIR/run.err")" >&2
}

# leftovers: pids of live processes started by one of this test's engines
# (they carry CRASHTEST_MARK in their environment).
leftovers() {
	grep -lzx "CRASHTEST_MARK=$T_DIR" /proc/[0-9]*/environ 2>/dev/null |
	    sed 's|/proc/||; s|/environ||' | tr '\n' ' '
}

# --- the steps and the flow -------------------------------------------------

# Each step notes its start and end in the ledger (one O_APPEND write a
# line) around a pause of 0 to 40 ms, and writes nothing to its pipes.
ledger="$T_DIR/ledger"
: >"$ledger"
: >"$T_DIR/engine.err"
: >"$T_DIR/run.err"
cat >"$T_DIR/step.sh" <<EOF
line="\$SLUICE_WORKFLOW_ID \$SLUICE_STEP\${SLUICE_ARG_ITEM:+/\$SLUICE_ARG_ITEM} \$SLUICE_STEP_ID \$SLUICE_ATTEMPT"
printf 'start %s\n' "\$line" >>"$ledger"
ms=\$(((SLUICE_STEP_ID * 7919 + \$\$ * 31) % 41))
case \$ms in ?) ms=0\$ms ;; esac
sleep 0.0\$ms
printf 'end %s\n' "\$line" >>"$ledger"
exit 0
EOF
cat >"$T_DIR/tools.json" <<EOF
{"ledger": {"shell": ". '$T_DIR/step.sh'",
  "retry": {"max_attempts": 100, "backoff": ["0s"]}}}
EOF
export SLUICE_TOOLS="$T_DIR/tools.json"

cat >"$T_DIR/flow.json" <<'EOF'
{"start": {"tool": "ledger", "next": "prep"},
 "prep": {"tool": "ledger", "parallel": ["a", "b", "c"]},
 "a": {"tool": "ledger", "next": "a2"},
 "a2": {"tool": "ledger", "join": "merge"},
 "b": {"tool": "ledger", "join": "merge"},
 "c": {"tool": "noop", "next": "c2"},
 "c2": {"tool": "ledger", "join": "merge"},
 "merge": {"tool": "ledger",
  "branch": [{"if": "input.pick == \"left\"", "then": "left"},
   {"else": "right"}]},
 "left": {"workflow": "sub", "input": {"pick": "child"}, "next": "tail"},
 "right": {"tool": "ledger", "next": "right2"},
 "right2": {"tool": "ledger", "next": "tail"},
 "tail": {"tool": "ledger"}}
EOF
cat >"$T_DIR/sub.json" <<'EOF'
{"inputs": {"pick": {"required": true}},
 "flow": {"start": {"tool": "ledger", "next": "s2"},
  "s2": {"tool": "ledger"}},
 "output": {"done": "{{steps.s2.status}}"}}
EOF
"$SLUICE" template save sub "$T_DIR/sub.json" >/dev/null
is "$?" 0 "the child template is saved"
cat >"$T_DIR/fe.json" <<'EOF'
{"start": {"tool": "ledger", "next": "fan"},
 "fan": {"foreach": ["h1", "h2", "h3", "h4", "h5", "h6"],
  "concurrency": 2, "batch": [1, "50%"],
  "do": {"tool": "ledger", "args": {"item": "{{item}}"}}, "next": "tail"},
 "tail": {"tool": "ledger"}}
EOF
# The steps each pick reaches (c is a built-in: it writes no ledger line;
# left is the sub-workflow step, which writes none either; fan is a
# for-each: its items write the ledger, as fan/ITEM).
expect="left start prep a a2 b c c2 merge left tail
right start prep a a2 b c c2 merge right right2 tail
child start s2
fe start fan tail"
# A row's key in the ledger: an item's is its step's and its label.
rk="(r.step_key || CASE WHEN r.item_index IS NOT NULL THEN '/' || r.label
    ELSE '' END)"

# --- crash, again and again -------------------------------------------------

n=0
while [ "$n" -lt "$workflows" ]; do
	n=$((n + 1))
	queue "$n"
done

# Each engine lives a random 0 to CRASH_RUN_MS ms, counted from its start
# in one trial of three (the kill often lands in its start-up and recovery)
# and from the first step it starts in the others (it lands among steps).
t=0
early=0
while [ "$t" -lt "$trials" ]; do
	t=$((t + 1))
	i=0
	while [ "$i" -lt "$per_trial" ]; do
		i=$((i + 1))
		n=$((n + 1))
		queue "$n"
	done
	before=$(grep -c '^start' "$ledger")
	CRASHTEST_MARK="$T_DIR" "$SLUICE" engine >/dev/null \
	    2>>"$T_DIR/engine.err" </dev/null &
	EPID=$!
	if [ "$(rand 2)" -eq 0 ]; then
		early=$((early + 1))
	else
		wait_for started "$before" ||
			echo "# trial $t: the engine started no step in 10 s"
	fi
	sleep "$(ms_to_s "$(rand "$run_ms")")"
	kill -9 "$EPID" 2>/dev/null
	wait "$EPID" 2>/dev/null
	EPID=""
done
total=$n
done_before=$(q "SELECT count(*) FROM workflows WHERE status = 'completed'")

CRASHTEST_MARK="$T_DIR" timeout -s KILL "$drain_s" "$SLUICE" engine \
    --drain >/dev/null 2>"$T_DIR/drain.err" </dev/null
drc=$?
is "$drc" 0 "the last engine drains every workflow (exit status)"
if [ "$drc" -ne 0 ]; then
	sed 's/^/#   /' "$T_DIR/drain.err" | head -20
fi

# --- the checks -------------------------------------------------------------

# The ledger and the expected steps as tables beside the database.
c="$T_DIR/check.db"
printf '%s\n' "$expect" | awk '{ for (i = 2; i <= NF; i++) print $1, $i }' \
    >"$T_DIR/expect"
sqlite3 "$c" <<EOF
CREATE TABLE led (ev TEXT, wf INTEGER, key TEXT, id INTEGER, attempt INTEGER);
CREATE TABLE expect (pick TEXT, key TEXT);
.separator " "
.import $ledger led
.import $T_DIR/expect expect
EOF

# cq SQL: query the ledger (led, expect) with the database attached as s.
cq() {
	sqlite3 -cmd ".timeout 5000" -cmd "ATTACH '$SLUICE_DB' AS s" "$c" "$1"
}

got=$(cq "SELECT count(*) FROM s.workflows WHERE parent_id IS NULL")
is "$got" "$total" "all $total workflows were recorded"
lefts=$(cq "SELECT count(*) FROM s.workflows WHERE parent_id IS NULL AND
    json_extract(input_json, '$.pick') = 'left'")
got=$(cq "SELECT count(*) FROM s.workflows WHERE parent_id IS NOT NULL")
is "$got" "$lefts" \
    "each sub-workflow step started one child run ($got for $lefts)"
got=$(cq "SELECT count(*) FROM s.workflow_steps r JOIN s.workflows c
    ON c.id = r.child_id WHERE r.step_key = 'left' AND r.status = 'done'
    AND c.status = 'completed' AND c.parent_step_id = r.id
    AND r.result_json = c.output_json")
is "$got" "$lefts" "each completed with its child's output"
got=$(cq "SELECT count(*) FROM s.workflows WHERE status != 'completed'")
is "$got" 0 "every workflow completed (not completed: $got of $total)"
if [ "$got" -ne 0 ]; then
	cq "SELECT '#   ' || id || ' ' || status || ': ' || ifnull(error, '')
	    FROM s.workflows WHERE status != 'completed' LIMIT 10"
fi

got=$(cq "SELECT count(*) FROM s.workflow_steps
    WHERE status IN ('pending', 'ready', 'running', 'waiting')")
is "$got" 0 "no step row is left unfinished"

want=$(cq "SELECT count(*) FROM s.workflows w JOIN expect x
    ON x.pick = json_extract(w.input_json, '$.pick')")
got=$(cq "SELECT count(*) FROM s.workflows w JOIN expect x
    ON x.pick = json_extract(w.input_json, '$.pick')
    WHERE (SELECT count(*) FROM s.workflow_steps r WHERE r.workflow_id = w.id
    AND r.step_key = x.key AND r.status = 'done'
    AND r.item_index IS NULL) != 1")
is "$got" 0 \
    "each step a workflow reaches has one done row ($got of $want do not)"
if [ "$got" -ne 0 ]; then
	cq "SELECT '#   workflow ' || w.id || ' step ' || x.key || ': ' ||
	    (SELECT count(*) FROM s.workflow_steps r WHERE r.workflow_id = w.id
	    AND r.step_key = x.key AND r.status = 'done') || ' done rows'
	    FROM s.workflows w JOIN expect x
	    ON x.pick = json_extract(w.input_json, '$.pick')
	    WHERE (SELECT count(*) FROM s.workflow_steps r
	    WHERE r.workflow_id = w.id AND r.step_key = x.key
	    AND r.status = 'done') != 1 LIMIT 10"
fi

want=$(cq "SELECT 6 * count(*) FROM s.workflows
    WHERE json_extract(input_json, '$.pick') = 'fe'")
got=$(cq "SELECT count(*) FROM (SELECT 1 FROM s.workflow_steps r
    WHERE r.item_index IS NOT NULL AND r.status = 'done'
    GROUP BY r.workflow_id, r.item_index HAVING count(*) = 1)")
is "$got" "$want" "each for-each item is done exactly once ($got of $want)"
got=$(cq "SELECT count(*) FROM s.workflow_steps r
    WHERE r.items IS NOT NULL AND (r.status != 'done' OR
    json_array_length(r.result_json) != 6)")
is "$got" 0 "each for-each row is done with its six results ($got not)"

got=$(cq "SELECT count(*) FROM s.workflow_steps r JOIN s.workflows w
    ON w.id = r.workflow_id WHERE r.status = 'done' AND NOT EXISTS
    (SELECT 1 FROM expect x WHERE x.pick = json_extract(w.input_json,
    '$.pick') AND x.key = r.step_key)")
is "$got" 0 "no step outside its workflow's path is done"

done_rows=$(cq "SELECT count(*) FROM s.workflow_steps
    WHERE status = 'done' AND tool = 'ledger' AND items IS NULL")
got=$(cq "SELECT count(*) FROM s.workflow_steps r
    WHERE r.status = 'done' AND r.tool = 'ledger' AND r.items IS NULL AND (
    NOT EXISTS (SELECT 1 FROM led l WHERE l.id = r.id AND l.ev = 'start') OR
    NOT EXISTS (SELECT 1 FROM led l WHERE l.id = r.id AND l.ev = 'end'))")
is "$got" 0 "every done row ran to its end ($got of $done_rows did not)"

got=$(cq "SELECT count(*) FROM (SELECT id FROM led WHERE ev = 'start'
    GROUP BY id HAVING count(*) > 1)")
is "$got" 0 "no step row started twice ($got did)"

got=$(cq "SELECT count(*) FROM s.workflow_steps r
    JOIN led e ON e.id = r.id AND e.ev = 'end'
    JOIN led l ON l.ev = 'start' AND l.wf = r.workflow_id
    AND l.key = $rk AND l.rowid > e.rowid
    WHERE r.status = 'done'")
is "$got" 0 "nothing started again after a step's recorded completion ($got)"
if [ "$got" -ne 0 ]; then
	cq "SELECT '#   row ' || r.id || ' (' || r.workflow_id || ' ' ||
	    r.step_key || ') done; row ' || l.id || ' started after its end'
	    FROM s.workflow_steps r JOIN led e ON e.id = r.id AND e.ev = 'end'
	    JOIN led l ON l.ev = 'start' AND l.wf = r.workflow_id
	    AND l.key = $rk AND l.rowid > e.rowid
	    WHERE r.status = 'done' LIMIT 10"
fi

got=$(cq "SELECT count(*) FROM led s1
    JOIN led e1 ON e1.id = s1.id AND e1.ev = 'end'
    JOIN led s2 ON s2.ev = 'start' AND s2.wf = s1.wf AND s2.key = s1.key
    AND s2.id != s1.id AND s2.rowid > s1.rowid AND s2.rowid < e1.rowid
    WHERE s1.ev = 'start'")
is "$got" 0 "no two attempts of a step ran at once ($got)"

got=$(cq "SELECT count(*) FROM led l LEFT JOIN s.workflow_steps r
    ON r.id = l.id WHERE r.id IS NULL OR r.workflow_id != l.wf OR
    $rk != l.key OR r.attempt != l.attempt OR r.tool != 'ledger'")
is "$got" 0 "every ledger line names a row of the database ($got do not)"

got=$(cq "SELECT count(*) FROM s.workflow_steps WHERE status = 'failed'
    AND ifnull(error, '') NOT LIKE 'interrupted:%'")
is "$got" 0 "no attempt failed but by an interruption ($got)"
if [ "$got" -ne 0 ]; then
	cq "SELECT '#   row ' || id || ': ' || ifnull(error, '')
	    FROM s.workflow_steps WHERE status = 'failed'
	    AND ifnull(error, '') NOT LIKE 'interrupted:%' LIMIT 10"
fi

left=$(leftovers)
is "$left" "" "no step process is left alive"

got=$(grep -c 'Sanitizer\|runtime error' "$T_DIR/engine.err" \
    "$T_DIR/drain.err" "$T_DIR/run.err" | awk -F: '{ n += $2 } END { print n }')
is "$got" 0 "no sanitizer report from any engine"

starts=$(cq "SELECT count(*) FROM led WHERE ev = 'start'")
keys=$(cq "SELECT count(*) FROM (SELECT DISTINCT wf, key FROM led
    WHERE ev = 'start')")
interrupted=$(cq "SELECT count(*) FROM s.workflow_steps
    WHERE error LIKE 'interrupted:%'")
lost=$(cq "SELECT count(*) FROM s.workflow_steps r WHERE r.status != 'done'
    AND EXISTS (SELECT 1 FROM led l WHERE l.id = r.id AND l.ev = 'end')")
rows=$(cq "SELECT count(*) FROM s.workflow_steps")
echo "# $trials kills ($early early in an engine's life), $total workflows" \
    "($done_before completed before the drain), $rows step rows," \
    "$interrupted interrupted, $((starts - keys)) re-runs ($lost after" \
    "the process had ended), $starts ledger starts"

done_testing
