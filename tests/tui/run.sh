#!/bin/sh
# tests/tui/run.sh: the run view, driven by key scripts (tests/screen-lib.sh;
# no terminal: tests/tui/terminal.sh has those paths).  Runs of the example
# templates (canary-deploy fans out to three zones and joins; db-backup
# is a sequence) and of small flows (a step retried until it fails, a wide
# fan-out, a run still going) are opened from the Workflows view; the
# screen shows the step tree in order with its indentation, retries as
# rows of their own, the steps a failed run never reached, the timeline's
# axis and bars, a step's details on Enter, a wide fan-out collapsed and
# expanded, and f following the running step as the tree changes.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

export SLUICE_TOOLS="$TOP_SRCDIR/share/tools.json"
# The demo deploys and rollbacks take 0.2 s, not a second each.
export SLUICE_DEMO_SECONDS=0.2

# in_order REGEX...: each REGEX matches a line of $SCR_LAST, each below
# the one before; else what did not, in $ORDER_BAD.
in_order() {
	_prev=0
	for _re in "$@"; do
		_n=$(printf '%s\n' "$SCR_LAST" | grep -nE -- "$_re" | head -1 |
		    cut -d: -f1)
		if [ -z "$_n" ] || [ "$_n" -le "$_prev" ]; then
			ORDER_BAD="/$_re/ (line ${_n:-none}, after line $_prev)"
			return 1
		fi
		_prev=$_n
	done
	return 0
}

# order_ok DESC REGEX...: one case: once each REGEX has matched a line
# (each within $TUI_TIMEOUT), the screen shows them in that order.
order_ok() {
	_desc=$1
	shift
	_code=in_order
	for _re in "$@"; do
		scr_wait "$_re"
		_code="$_code '$(printf '%s' "$_re" | sed "s/'/'\\\\''/g")'"
	done
	scr_check "$_desc" "$_code || { echo \"# out of order: \$ORDER_BAD\"; false; }"
}

# open_run KEYS...: from the Workflows view, move with KEYS and open the
# run under the cursor.
open_run() {
	scr_keys 1
	scr_wait 'ID +NAME +STATUS'
	scr_keys g "$@" Enter
}

for t in canary-deploy db-backup; do
	run_sluice template save "$t" "$TOP_SRCDIR/share/templates/$t.json"
	expect_rc 0 "template $t saved"
done

run_sluice run canary-deploy -i app=shop -i version=2.4.1 \
    -i bake_seconds:=0 --wait
expect_rc 0 "run 1: canary-deploy, promoted to every zone"
SLUICE_DEMO_CANARY=unhealthy run_sluice run canary-deploy -i app=shop \
    -i version=2.4.2 -i bake_seconds:=0 --wait
expect_rc 1 "run 2: canary-deploy, unhealthy, rolled back and failed"

cat >"$T_DIR/flaky.json" <<'EOF'
{"start": {"tool": "echo", "args": {"msg": "hello"}, "next": "flaky"},
 "flaky": {"tool": "fail", "args": {"message": "connection refused"},
           "retry": {"max_attempts": 3, "backoff": ["50ms"]},
           "next": "after"},
 "after": {"tool": "noop", "next": "last"},
 "last": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/flaky.json" --wait
expect_rc 1 "run 3: a step retried three times, then failed"

cat >"$T_DIR/wide.json" <<'EOF'
{"start": {"tool": "noop",
           "parallel": ["w", "w", "w", "w", "w", "w", "w", "w", "w", "w"]},
 "w": {"tool": "echo", "args": {"ok": true}, "join": "j"},
 "j": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/wide.json" --wait
expect_rc 0 "run 4: a fan-out of ten branches"

cat >"$T_DIR/live.json" <<'EOF'
{"start": {"tool": "echo", "args": {"n": 1}, "next": "fan"},
 "fan": {"tool": "noop", "parallel": ["slow", "quick"]},
 "slow": {"tool": "sleep", "args": {"seconds": 60}, "join": "j"},
 "quick": {"tool": "sleep", "args": {"seconds": 1}, "next": "quick2"},
 "quick2": {"tool": "sleep", "args": {"seconds": 60}, "join": "j"},
 "j": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/live.json"
is "$OUT" 5 "run 5: recorded, to run when the console starts the engine"

# --- a completed run with a fan-out -----------------------------------------

scr_start 100x30 --
scr_wait 'engine: this console'
open_run G
scr_ok '^#1 canary-deploy +✓ completed +canary-deploy@1 +by ' \
    "Enter opens the run view: id, name, status, template@version, who"
scr_ok '^started [0-9:]+ +ended [0-9:]+ +took ' "its start, end and duration"
scr_ok '^input: \{"app":"shop","version":"2.4.1"' "its input on one line"
scr_ok '^STEP +TOOL +TOOK +RESULT' "the tree's column titles"
order_ok "the tree: the sequence, the fan-out's branches indented under it, \
the join after them, the arm not taken last" \
    '^✓ deploy_canary +deploy-release +[0-9]+m?s \{"app":"shop"' \
    '^✓ bake +sleep ' \
    '^✓ check_metrics +canary-metrics .*"healthy":true' \
    '^✓ promote +notify ' \
    '^├─ ✓ deploy_zone_a +deploy-release ' \
    '^├─ ✓ deploy_zone_b +deploy-release ' \
    '^└─ ✓ deploy_zone_c +deploy-release ' \
    '^✓ verify_fleet +health-check ' \
    '^✓ report_promoted +notify ' \
    '^↷ rollback +not reached$' \
    '^↷ report_rollback +not reached$' \
    '^↷ mark_failed +not reached$'

scr_keys t
T='[0-9]{2}:[0-9]{2}:[0-9]{2}'
scr_ok "^STEP \\([0-9]+m?s\\) +$T +$T +$T\$" \
    "t: the timeline, its time axis on the title line (start, middle, end)"
order_ok "the timeline: one bar per step row, in the tree's order" \
    '^✓ deploy_canary +█+ [0-9]+m?s$' \
    '^✓ bake +█' \
    '^├─ ✓ deploy_zone_a +█+( |$)' \
    '^└─ ✓ deploy_zone_c +█+( |$)' \
    '^✓ report_promoted +█' \
    '^↷ mark_failed *$'
scr_keys t
scr_ok '^STEP +TOOL +TOOK +RESULT' "t again: back to the tree"

scr_keys j Enter
scr_ok '^sluice .*Step' "Enter on a step row opens the step view"
scr_ok '^✓ bake +done' "... of the step under the cursor"
scr_keys q
scr_ok '^#1 canary-deploy' "q goes back to the run view"

# --- a failed run: what it never reached ------------------------------------

open_run G k
scr_ok '^#2 canary-deploy +✗ failed' "run 2: failed"
scr_ok '^error: step mark_failed failed: canary of shop 2.4.2 was unhealthy' \
    "... with the reason it failed in the header"
order_ok "after a failed run, the steps it never reached: the fan-out \
with its branches under it, then the join" \
    '^✓ rollback +rollback-release ' \
    '^✓ report_rollback +notify ' \
    '^✗ mark_failed +fail +[0-9]+m?s canary of shop 2.4.2 was unhealthy' \
    '^↷ promote +not reached$' \
    '^├─ ↷ deploy_zone_a +not reached$' \
    '^└─ ↷ deploy_zone_c +not reached$' \
    '^↷ verify_fleet +not reached$' \
    '^↷ report_promoted +not reached$'

# --- retries ----------------------------------------------------------------

open_run G k k
scr_ok '^#3 flaky +✗ failed' "run 3: failed"
scr_ok '^STEP +TOOL +TRY +TOOK +RESULT' "a run with retries has a TRY column"
order_ok "each attempt is a row of its own, numbered past the first; the \
rest of the sequence not reached" \
    '^✓ start +echo +[0-9]+m?s \{"msg":"hello"\}' \
    '^✗ flaky +fail +[0-9]+m?s connection refused$' \
    '^✗ flaky +fail +#2 +[0-9]+m?s connection refused$' \
    '^✗ flaky +fail +#3 +[0-9]+m?s connection refused$' \
    '^↷ after +not reached$' \
    '^↷ last +not reached$'

# --- a wide fan-out ---------------------------------------------------------

open_run G k k k
scr_ok '^└─ ▸ 10 branches +✓ 10 +\(Enter expands\)' \
    "a fan-out of ten branches collapses to one row of counts"
scr_gone_ok '✓ w ' "... its branches hidden"
scr_keys j Enter
scr_ok '^├─ ▾ 10 branches +✓ 10 +\(Enter collapses\)' "Enter expands it"
scr_ok '^└─ ✓ w +echo ' "... its branches shown under the counts"
scr_check "... all ten of them" \
    '[ "$(grep -cE "^(├|└)─ ✓ w " "$SCR_SCREEN")" -eq 10 ]'
scr_keys Enter
scr_ok '^└─ ▸ 10 branches' "Enter again collapses it"

# --- a live run, followed ---------------------------------------------------

open_run
scr_ok '^#5 live +▶ running' "run 5 runs (this console is its engine)"
scr_ok '^   └─ ▶ quick2 +sleep ' \
    "... its second branch reaches its second step"
scr_ok '^├─ ▶ slow +sleep +[0-9]+s' "... while the first still sleeps"
scr_keys f
scr_ok 'follow: the running step' "f: follow, said on the message line"
scr_keys Enter
scr_ok '^▶ quick2 +running' \
    "f put the cursor on the newest running step (Enter shows which)"
scr_keys q k
scr_ok '^follow off' "moving the cursor stops following"

# --- a step queued behind its concurrency key --------------------------------

cat >"$T_DIR/keyhold.json" <<'EOF'
{"start": {"tool": "sleep", "args": {"seconds": 60},
   "concurrency": {"key": "lane"}}}
EOF
run_sluice run "$T_DIR/keyhold.json"
holdrun=$OUT
wait_for step_is "$holdrun" start running
run_sluice run "$T_DIR/keyhold.json"
holdstep=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $holdrun")
open_run
scr_ok "start +sleep .*behind #$holdstep" \
    "a queued step's row says which step row holds its key"

# --- a run cancelled before it began cannot be retried ------------------------

run_sluice run "$T_DIR/keyhold.json" --at "in 1 hour"
later=$OUT
run_sluice cancel "$later"
expect_rc 0 "a scheduled run is cancelled before its start"
open_run
scr_ok "^#$later keyhold" "its run view opens"
scr_gone_ok "R retry" \
    "its footer offers no retry (the engine refuses a run that never began)"

# --- LANG=C -----------------------------------------------------------------

scr_start 80x24 LC_ALL=C LANG=C --
scr_wait 'engine: this console'
open_run G
scr_ok '^#1 canary-deploy +\+ completed' "LANG=C: ASCII status glyphs"
order_ok "LANG=C: ASCII tree rails and corners" \
    '^\+ promote +notify ' \
    '^\|- \+ deploy_zone_a ' \
    '^\\- \+ deploy_zone_c ' \
    '^~ rollback +not reached$'
scr_keys t
scr_ok '^\+ deploy_canary +#+ ' "LANG=C: the timeline's bars in ASCII"
scr_resize 40x10
scr_ok '^#1 canary-deploy' "40x10: the header's first line stays"
scr_ok '^STEP \(' "... and the timeline's title line"
scr_keys t
scr_ok '^STEP +TOOK +RESULT' "40x10: the tree drops the tool column"

scr_stop
scr_sanitizers_ok "no sanitizer reports"

done_testing
