#!/bin/sh
# tests/cli/concurrency.sh: concurrency keys (SPEC §13).  Ten starts of
# one key with limit 1 and on_busy queue never overlap (a side-effect
# log of start and end times shows it) and run in arrival order; queued
# runs say what they wait behind in list, show and JSON, can be
# cancelled, and keep their order across a kill -9 of the engine, none
# lost and none run twice.  With refuse, a start into a held key exits 4
# naming the holder and records nothing.  check refuses a bad
# concurrency object at its JSON path, and a key object on a step (only
# runs hold keys so far).

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
printf '{"start": {"tool": "noop", "concurrency": {"key": "k"}}}\n' \
    >"$T_DIR/bad.json"
run_sluice check "$T_DIR/bad.json"
expect_rc 2 "a key object on a step is refused, not ignored"
like "$ERR" '$.start.concurrency: a concurrency key is given on the run' \
    "at its path, saying where a key goes"

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

done_testing
