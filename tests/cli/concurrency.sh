#!/bin/sh
# tests/cli/concurrency.sh: concurrency keys (SPEC §13).  Ten starts of
# one key with limit 1 and on_busy queue never overlap (a side-effect
# log of start and end times shows it) and run in arrival order; queued
# runs say what they wait behind in list, show and JSON, can be
# cancelled, and keep their order across a kill -9 of the engine, none
# lost and none run twice.  With refuse, a start into a held key exits 4
# naming the holder and records nothing.  check refuses a bad
# concurrency object at its JSON path.  A step-level key serialises one
# step across three runs while their other steps overlap, keeps its
# queued rows across a kill -9, and with refuse fails the step naming
# the holder.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

log="$T_DIR/side.log"
: >"$log"

# A flow whose one step logs "start NS ID" and "end NS ID" around a nap.
cat >"$T_DIR/deploy.json" <<EOF
{"concurrency": {"key": "deploy-{{input.app}}"},
 "start": {"run": ["sh", "-c",
   "echo start \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$log; sleep 0.2; echo end \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$log"]}}
EOF
# The same key, held until the test says go.
cat >"$T_DIR/hold.json" <<EOF
{"concurrency": {"key": "deploy-{{input.app}}"},
 "start": {"run": ["sh", "-c",
   "echo start \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$log; while [ ! -e $T_DIR/go ]; do sleep 0.05; done; echo end \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$log"]}}
EOF

# line_like TEXT REGEX DESCRIPTION: a line of TEXT matches REGEX (grep -E).
line_like() {
	printf '%s\n' "$1" | grep -Eq -- "$2"
	_rc=$?
	ok "$_rc" "$3"
	[ "$_rc" -eq 0 ] || printf '%s\n' "$1" | sed 's/^/#   /'
}

# run_digest: a digest of every table but the engine's row and the
# answers kept per request id (the record that lets a client whose answer
# was lost learn that its start was refused): what a refusal must not touch.
run_digest() {
	sqlite3 -cmd '.timeout 5000' "$SLUICE_DB" "SELECT name FROM
	    sqlite_schema WHERE type = 'table' AND name NOT IN ('engine',
	    'requests') ORDER BY name" | while read -r _t; do
		echo ".dump $_t"
	done | sqlite3 -cmd '.timeout 5000' "$SLUICE_DB" | md5sum
}

# no_overlap FILE: starts and ends alternate, each end the run just
# started, and no line's time is before the line above it.
no_overlap() {
	sort -n -k2 "$1" | awk '
	    $1 == "start" { if (open != "") bad = 1; open = $3; next }
	    $1 == "end" { if (open != $3) bad = 1; open = ""; next }
	    END { exit (bad || open != "") }'
}

# run_order FILE: the ids in the order their steps started.
run_order() {
	sort -n -k2 "$1" | awk '$1 == "start" { printf "%s ", $3 }'
}

# --- check ------------------------------------------------------------------

run_sluice check "$T_DIR/deploy.json"
expect_rc 0 "a flow with a run-level concurrency key is valid"
like "$OUT" "1 step" "the key is not a step"
for bad in '{"key": "k", "limit": 0}|$.concurrency.limit' \
    '{"key": "k", "limit": 1.5}|$.concurrency.limit' \
    '{"key": "k", "on_busy": "wait"}|$.concurrency.on_busy' \
    '{"limit": 2}|$.concurrency.key' \
    '{"key": "k", "limits": 2}|$.concurrency.limits' \
    '"k"|$.concurrency' \
    '{"key": "{{steps.start.result}}"}|$.concurrency.key'; do
	obj=${bad%|*}
	path=${bad##*|}
	printf '{"concurrency": %s, "start": {"tool": "noop"}}\n' "$obj" \
	    >"$T_DIR/bad.json"
	run_sluice check "$T_DIR/bad.json"
	expect_rc 2 "concurrency $obj is refused"
	like "$ERR" "$path" "at $path"
done
printf '{"start": {"tool": "noop", "concurrency": {"key": "k-{{input.x}}"}}}\n' \
    >"$T_DIR/good.json"
run_sluice check "$T_DIR/good.json"
expect_rc 0 "a key object on a step is valid"
printf '{"start": {"tool": "noop", "concurrency": {"limit": 2}}}\n' \
    >"$T_DIR/bad.json"
run_sluice check "$T_DIR/bad.json"
expect_rc 2 "a step's key object without a key is refused"
like "$ERR" '$.start.concurrency.key' "at the step's path"

# --- ten starts, limit 1, queue -----------------------------------------------

engine_start
run_sluice run -i app=shop "$T_DIR/hold.json"
hold=$OUT
wait_for test -s "$log"
ids=""
for i in 1 2 3 4 5 6 7 8 9 10; do
	run_sluice run -i app=shop "$T_DIR/deploy.json"
	expect_rc 0 "start $i is taken"
	like "$ERR" "queued workflow $OUT behind #" "start $i says it is queued"
	ids="$ids$OUT "
done
first=$(echo "$ids" | cut -d' ' -f1)
second=$(echo "$ids" | cut -d' ' -f2)
ninth=$(echo "$ids" | cut -d' ' -f9)
last=$(echo "$ids" | cut -d' ' -f10)
q_is "SELECT count(*) FROM workflows WHERE status = 'queued'" 10 \
    "the ten wait queued"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id IN
    (SELECT id FROM workflows WHERE status = 'queued')" 0 \
    "a queued run has no steps yet"
run_sluice list --status queued
line_like "$OUT" "^$first +deploy +queued +behind #$hold " \
    "list: the first queued waits behind the holder"
line_like "$OUT" "^$second +deploy +queued +behind #$first " \
    "list: the next waits behind the one before it"
run_sluice show "$second"
line_like "$OUT" "^status: +queued$" "show: queued"
line_like "$OUT" "^created: +[0-9-]+ [0-9:]+ by " \
    "show: a queued run was created, not started"
unlike "$OUT" "started:" "show: and does not say it started"
line_like "$OUT" "^key: +deploy-shop \\(limit 1\\), queued behind #$first" \
    "show: the key, its limit and what it waits behind"
run_sluice list --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$[0].id') || '|' ||
    json_extract(j, '\$[0].behind') || '|' ||
    json_extract(j, '\$[0].concurrency.key') || '|' ||
    json_extract(j, '\$[0].state') FROM d")" \
    "$last|$ninth|deploy-shop|queued" \
    "list --json: the last waits behind the ninth, with its key and state"
run_sluice show --json "$hold"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.state') || '|' ||
    json_extract(j, '\$.concurrency.limit') || '|' ||
    ifnull(json_extract(j, '\$.behind'), 'null') FROM d")" \
    "running|1|null" "show --json: the holder runs, behind nothing"
touch "$T_DIR/go"
wait_for wf_is "$last" completed
wait_for wf_is "$last" completed
ok $? "all ten complete"
q_is "SELECT count(*) FROM workflows WHERE status = 'completed'" 11 \
    "every one completed"
no_overlap "$log"
ok $? "at no moment did two run"
is "$(run_order "$log")" "$hold $ids" "they ran in arrival order"
is "$(grep -c '^start' "$log")" 11 "each ran once"

# --- another key is not held ----------------------------------------------------

rm -f "$T_DIR/go"
: >"$log"
run_sluice run -i app=shop "$T_DIR/hold.json"
hold=$OUT
wait_for test -s "$log"
run_sluice run -i app=blog "$T_DIR/deploy.json"
blog=$OUT
wait_for wf_is "$blog" completed
ok $? "a run of another key runs while deploy-shop is held"

# --- cancel a queued run ----------------------------------------------------------

run_sluice run -i app=shop "$T_DIR/deploy.json"
c1=$OUT
run_sluice run -i app=shop "$T_DIR/deploy.json"
c2=$OUT
run_sluice cancel "$c1" -m "not now"
expect_rc 0 "a queued run can be cancelled"
like "$OUT$ERR" "cancelled workflow $c1 while it was queued" "cancel says so"
q_is "SELECT status FROM workflows WHERE id = $c1" cancelled \
    "the cancelled run is cancelled"
run_sluice show --json "$c2"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.behind') FROM d")" \
    "$hold" "the run behind it moves up: now behind the holder"
q_is "SELECT count(*) FROM workflow_steps WHERE workflow_id = $c1" 0 \
    "the cancelled run never ran a step"

# --- refuse ---------------------------------------------------------------------

cat >"$T_DIR/refuse.json" <<EOF
{"concurrency": {"key": "deploy-{{input.app}}", "on_busy": "refuse"},
 "start": {"tool": "noop"}}
EOF
before=$(run_digest)
n=0
for i in 1 2 3 4 5 6 7 8 9; do
	run_sluice run -i app=shop "$T_DIR/refuse.json"
	[ "$RC" -eq 4 ] && case "$ERR" in
	*"start: concurrency key deploy-shop is held by workflow $hold (limit 1)"*)
		n=$((n + 1)) ;;
	esac
done
is "$n" 9 "nine refused starts exit 4 naming the run that holds the key"
like "$ERR" "sluice: start: concurrency key deploy-shop is held by workflow $hold (limit 1)" \
    "the refusal as a person reads it"
is "$(run_digest)" "$before" "the refusals recorded nothing (no run, step or audit row)"
touch "$T_DIR/go"
wait_for wf_is "$c2" completed
ok $? "once the holder ends, the queued run runs"
run_sluice run -i app=shop "$T_DIR/refuse.json"
expect_rc 0 "with the key free, a refusing start runs"

# --- retry of a run whose key is held queues again ------------------------------

cat >"$T_DIR/flaky.json" <<EOF
{"concurrency": {"key": "deploy-{{input.app}}"},
 "start": {"run": ["sh", "-c", "test -e $T_DIR/fixed"],
   "retry": {"max_attempts": 1}}}
EOF
rm -f "$T_DIR/go"
run_sluice run -i app=web "$T_DIR/flaky.json"
flaky=$OUT
wait_for wf_is "$flaky" failed
ok $? "a run of key deploy-web fails"
run_sluice run -i app=web "$T_DIR/hold.json"
webhold=$OUT
wait_for step_is "$webhold" start running
touch "$T_DIR/fixed"
run_sluice retry "$flaky"
expect_rc 0 "retry of a run whose key is held is taken"
like "$OUT$ERR" "workflow $flaky is queued behind #$webhold" "it says it is queued"
q_is "SELECT status FROM workflows WHERE id = $flaky" queued \
    "the retried run waits queued"
touch "$T_DIR/go"
wait_for wf_is "$flaky" completed
ok $? "it runs again once the key is free"

# --- kill -9 with five queued ---------------------------------------------------

# The holder waits at a gate: the crash interrupts no process of its.
cat >"$T_DIR/gate.json" <<'EOF'
{"concurrency": {"key": "deploy-{{input.app}}"},
 "start": {"gate": {"message": "release the key?"}}}
EOF
: >"$log"
run_sluice run -i app=shop "$T_DIR/gate.json"
hold=$OUT
wait_for step_is "$hold" start waiting
ids=""
for i in 1 2 3 4 5; do
	run_sluice run -i app=shop "$T_DIR/deploy.json"
	ids="$ids$OUT "
done
q_is "SELECT count(*) FROM workflows WHERE status = 'queued'" 5 "five queued"
# Two queued runs with a secret input: one cancelled, one kept.
cat >"$T_DIR/secret.json" <<EOF
{"inputs": {"pw": {"secret": true, "required": true}, "app": {}},
 "concurrency": {"key": "deploy-{{input.app}}"},
 "flow": {"start": {"shell": "printf %s \"\$P\" >$T_DIR/seen",
                    "env": {"P": "{{input.pw}}"}}}}
EOF
printf 'hunter22\n' >"$T_DIR/pw"
run_sluice run -i "pw=@$T_DIR/pw" -i app=shop "$T_DIR/secret.json"
sdrop=$OUT
run_sluice run -i "pw=@$T_DIR/pw" -i app=shop "$T_DIR/secret.json"
skeep=$OUT
ok "$([ -f "$SLUICE_DB.secrets/$sdrop.json" ] && echo 0 || echo 1)" \
    "a queued run keeps its secret input outside the database"
run_sluice cancel "$sdrop"
ok "$([ -e "$SLUICE_DB.secrets/$sdrop.json" ] && echo 1 || echo 0)" \
    "cancelling it removes its secret input file at once"
engine_crash
engine_start
ok "$([ -f "$SLUICE_DB.secrets/$skeep.json" ] && echo 0 || echo 1)" \
    "a restarted engine keeps the secret input of a run still queued"
q_is "SELECT count(*) FROM workflows WHERE status = 'queued'" 6 \
    "after kill -9 and a restart the five (and the secret one) still wait"
run_sluice approve "$(step_id "$hold" start)" -m "go"
expect_rc 0 "the holder's gate is approved"
wait_for wf_is "$(echo "$ids" | cut -d' ' -f5)" completed
ok $? "the queue goes on"
q_is "SELECT count(*) FROM workflows WHERE id > $hold AND status = 'completed'
    AND id NOT IN ($sdrop, $skeep)" 5 "none lost"
wait_for wf_is "$skeep" completed
ok $? "the queued run with a secret input runs in its turn"
is "$(cat "$T_DIR/seen" 2>/dev/null)" "hunter22" \
    "... with its secret input, kept across the crash"
is "$(grep -c '^start' "$log")" 5 "none ran twice"
no_overlap "$log"
ok $? "no two ran at once"
is "$(run_order "$log")" "$ids" "the queue kept its order across the crash"
engine_stop

# --- a step-level key ---------------------------------------------------------

engine_start
alog="$T_DIR/a.log"
blog="$T_DIR/b.log"
: >"$alog"
: >"$blog"
# Step a (key "deploy") and step b, in parallel; each logs its interval.
cat >"$T_DIR/pipe.json" <<EOF
{"start": {"tool": "noop", "parallel": ["a", "b"], "join": "done"},
 "a": {"run": ["sh", "-c",
   "echo start \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$alog; sleep 1; echo end \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$alog"],
   "concurrency": {"key": "deploy"}},
 "b": {"run": ["sh", "-c",
   "echo start \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$blog; sleep 1; echo end \$(date +%s%N) \$SLUICE_WORKFLOW_ID >>$blog"]},
 "done": {"tool": "noop"}}
EOF
# A step that holds key "deploy" until go2 exists.
cat >"$T_DIR/holdstep.json" <<EOF
{"hold": {"run": ["sh", "-c",
   "while [ ! -e $T_DIR/go2 ]; do sleep 0.05; done"],
   "concurrency": {"key": "deploy"}, "on_interrupt": "fail"}}
EOF

# cross_overlap A B: some interval in log B overlaps one in log A of
# another run.
cross_overlap() {
	awk 'FNR == 1 { f++ }
	    $1 == "start" { s[f, $3] = $2 }
	    $1 == "end" { n[f]++; id[f, n[f]] = $3; lo[f, n[f]] = s[f, $3];
		hi[f, n[f]] = $2 }
	    END { for (i = 1; i <= n[2]; i++) for (j = 1; j <= n[1]; j++)
		if (id[2, i] != id[1, j] && lo[2, i] < hi[1, j] &&
		    lo[1, j] < hi[2, i]) exit 0
		exit 1 }' "$1" "$2"
}

ids=""
for i in 1 2 3; do
	run_sluice run "$T_DIR/pipe.json"
	expect_rc 0 "pipeline $i starts"
	ids="$ids$OUT "
done
for id in $ids; do
	wait_for wf_is "$id" completed
	ok $? "pipeline $id completes"
done
is "$(grep -c '^start' "$alog")" 3 "each step a ran once"
no_overlap "$alog"
ok $? "no two runs' a steps overlapped (key deploy, limit 1)"
cross_overlap "$alog" "$blog"
ok $? "a b step overlapped another run's a: only a is serialised"
q_is "SELECT group_concat(DISTINCT conc_key) || '|' || count(*) FROM
    workflow_steps WHERE name = 'a'" "deploy|3" "each a row kept its key"

# --- refuse on a step -----------------------------------------------------------

run_sluice run "$T_DIR/holdstep.json"
holder=$OUT
wait_for step_is "$holder" hold running
cat >"$T_DIR/refusestep.json" <<EOF
{"start": {"run": ["true"],
   "concurrency": {"key": "deploy", "on_busy": "refuse"}}}
EOF
run_sluice run "$T_DIR/refusestep.json"
refused=$OUT
wait_for wf_is "$refused" failed
ok $? "a refusing step that finds its key held fails its run"
q_is "SELECT error FROM workflow_steps WHERE workflow_id = $refused" \
    "concurrency key deploy is held by workflow $holder step hold (limit 1)" \
    "the step's reason names the run and step holding the key"

# --- kill -9 with queued step rows ----------------------------------------------

: >"$alog"
: >"$blog"
ids=""
for i in 1 2 3; do
	run_sluice run "$T_DIR/pipe.json"
	ids="$ids$OUT "
done
for id in $ids; do
	wait_for step_is "$id" b completed
done
q_is "SELECT count(*) FROM workflow_steps WHERE name = 'a'
    AND status = 'queued'" 3 "the three a steps wait queued behind the holder"
is "$(grep -c '^end' "$blog")" 3 "their b steps ran meanwhile"
first_id=${ids%% *}
hold_step=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $holder
    AND name = 'hold'")
a1=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $first_id
    AND name = 'a'")
run_sluice show "$first_id"
line_like "$OUT" "^$a1 +a +queued .*queued behind #$hold_step\$" \
    "show: a queued step says which step row holds its key"
last_id=$(echo $ids | awk '{ print $NF }')
run_sluice show "$last_id" --json
is "$(json_query "$OUT" "SELECT json_extract(value, '\$.behind')
    FROM d, json_each(json_extract(d.j, '\$.steps'))
    WHERE json_extract(value, '\$.name') = 'a'")" \
    "$(q "SELECT max(id) FROM workflow_steps WHERE name = 'a'
    AND status = 'queued' AND workflow_id <> $last_id")" \
    "show --json: a queued step's behind is the queued row before it"
engine_crash
engine_start
for id in $ids; do
	wait_for wf_is "$id" completed
	ok $? "after kill -9 and a restart pipeline $id completes"
done
q_is "SELECT status FROM workflows WHERE id = $holder" failed \
    "the interrupted holder failed (on_interrupt fail), freeing the key"
is "$(grep -c '^start' "$alog")" 3 "each a ran once"
no_overlap "$alog"
ok $? "no two a steps overlapped across the crash"
touch "$T_DIR/go2"
engine_stop

done_testing
