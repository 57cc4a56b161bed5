#!/bin/sh
# tests/tui/versions.sh: a template's versions in the console: v on the
# Templates view lists them newest first with who saved them and how their
# runs went, Enter shows what a version changed as a unified diff, d what
# changed since it, and :versions reaches a removed template.  At 80x24
# and 200x60.  A gate's detail says whether its run's template version is
# the one that last ran to completion, and D shows the diff; both say so
# when it is that version, when no run has completed yet, and when the
# run is not from a template.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

cat >"$T_DIR/v1.json" <<'EOF'
{
  "description": "restart the web tier",
  "flow": {
    "start": {"tool": "echo", "args": {"batch": 1}, "next": "check"},
    "check": {"tool": "noop", "done": true}
  }
}
EOF
sed 's/"batch": 1/"batch": 2/' "$T_DIR/v1.json" >"$T_DIR/v2.json"
sed 's/"noop", "done"/"echo", "done"/' "$T_DIR/v2.json" >"$T_DIR/v3.json"
run_sluice template save web "$T_DIR/v1.json"
run_sluice run web --wait
run_sluice template save web "$T_DIR/v2.json"
run_sluice template save web "$T_DIR/v3.json"
run_sluice template save gone "$T_DIR/v1.json"
run_sluice template save gone "$T_DIR/v2.json"
run_sluice template rm gone
me=$(id -un)

for size in 80x24 200x60; do
	scr_start "$size" --
	scr_keys 3
	scr_ok '^web +3 ' "$size: the Templates view lists web at version 3"
	scr_keys v
	scr_ok '^VERSION +SAVED +BY +RUNS +COMPLETED' \
	    "$size: v opens the versions with their columns"
	scr_ok "^3 +[0-9:]+ +$me +0 +0" "$size: the newest version first"
	scr_ok "^1 +[0-9:]+ +$me +1 +1 +restart the web tier" \
	    "$size: version 1 ran once and completed"
	scr_ok 'sluice (--db [^ ]+ )?template history web' \
	    "$size: the message line echoes the command"
	scr_ok 'Enter diff +d diff to latest' "$size: the footer offers the diffs"
	scr_keys Enter
	scr_ok '^--- web v2 \(saved' "$size: Enter diffs the version before"
	scr_ok '^\+\+\+ web v3 \(saved' "$size: ... against the selected one"
	scr_ok '^-    "check": \{"tool": "noop", "done": true\}' \
	    "$size: the removed line"
	scr_ok '^\+    "check": \{"tool": "echo", "done": true\}' \
	    "$size: the added line"
	scr_ok 'sluice (--db [^ ]+ )?template diff web 2 3' "$size: the command is echoed"
	scr_keys q
	scr_ok '^VERSION +SAVED' "$size: q goes back to the versions"
	scr_keys G d
	scr_ok '^--- web v1 \(saved' "$size: d on version 1 diffs from it"
	scr_ok '^\+\+\+ web v3 \(saved' "$size: ... to the latest"
	scr_keys q g d
	scr_ok 'version 3 is the latest' "$size: d on the latest says so"
	scr_keys q
	scr_keys :
	scr_type "versions gone"
	scr_keys Enter
	scr_ok 'gone was removed .*; its versions are kept' \
	    "$size: :versions reaches a removed template"
	scr_keys g Enter
	scr_ok '^\+  "flow": \{|"batch": 2' "$size: and its versions diff"
	scr_stop
done

# A gate says whether its run's template is the version that last ran to
# completion, and D shows what changed since.
cat >"$T_DIR/d1.json" <<'EOF'
{
  "start": {"tool": "noop", "done": true}
}
EOF
cat >"$T_DIR/d2.json" <<'EOF'
{
  "start": {"tool": "noop", "next": "go"},
  "go": {"gate": {"message": "restart now?"}, "next": "restart"},
  "restart": {"tool": "echo", "args": {"what": "web"}}
}
EOF
run_sluice template save deploy "$T_DIR/d1.json"
run_sluice run deploy --wait
expect_rc 0 "version 1 of deploy runs to completion"
run_sluice template save deploy "$T_DIR/d2.json"
run_sluice run deploy
for size in 80x24 200x60; do
	scr_start "$size" --
	scr_keys 2
	scr_ok 'restart now\?' "$size: the gate waits"
	scr_keys Enter
	scr_ok '^  template +deploy v2 differs from v1, the version that last' \
	    "$size: its detail says the template changed since the last good run"
	scr_keys D
	scr_ok '^--- deploy v1 \(saved' "$size: D diffs the last good version"
	scr_ok '^\+\+\+ deploy v2 \(saved' "$size: ... against the run's"
	scr_ok '^\+  "go": \{"gate": \{"message": "restart now\?"\}' \
	    "$size: the added gate is shown"
	scr_stop
done

# The other answers to "is this the version that last ran to
# completion?", which the gate's detail and D work out by one function:
# the same version, none completed yet, a run not from a template.
# cancel_waiting: cancel every waiting run, so the Gates view has one.
cancel_waiting() {
	run_sluice list --json --status waiting
	for _w in $(json_query "$OUT" \
	    "SELECT json_extract(value, '\$.id') FROM d, json_each(d.j)"); do
		run_sluice cancel "$_w"
	done
}

# gate_says MESSAGE DETAIL D-MESSAGE WHAT: the one waiting gate (its
# MESSAGE) opens; its detail matches DETAIL (or has no template line,
# when DETAIL is "-"), and D answers D-MESSAGE.
gate_says() {
	scr_start 80x24 --
	scr_keys 2
	scr_ok "$1" "$4: the gate waits"
	scr_keys Enter
	if [ "$2" = - ]; then
		scr_wait '^  message +' >/dev/null
		scr_gone_ok '^  template ' "$4: the detail has no template line"
	else
		scr_ok "$2" "$4: the detail says so"
	fi
	scr_keys D
	scr_ok "$3" "$4: D says so too"
	scr_stop
}

cat >"$T_DIR/same.json" <<'EOF'
{"inputs": {"ask": {"required": false, "default": "yes"}},
 "flow": {
  "start": {"tool": "noop", "branch": [
    {"if": "input.ask == \"yes\"", "then": "go"}, {"else": "end"}]},
  "go": {"gate": {"message": "same now?"}, "next": "end"},
  "end": {"tool": "noop"}}}
EOF
cancel_waiting
run_sluice template save same "$T_DIR/same.json"
run_sluice run same -i ask=no --wait
expect_rc 0 "a run of same v1 that asks nothing completes"
run_sluice run same
gate_says 'same now\?' \
    '^  template +same v1, the version that last ran to completion' \
    'same v1 is the version that last ran to completion' \
    "the same version"

sed 's/same now/fresh now/' "$T_DIR/same.json" >"$T_DIR/fresh.json"
cancel_waiting
run_sluice template save fresh "$T_DIR/fresh.json"
run_sluice run fresh
gate_says 'fresh now\?' \
    '^  template +fresh v1: no run of this template has completed yet' \
    'no run of fresh has completed yet' "no run completed yet"

cat >"$T_DIR/loose.json" <<'EOF'
{"start": {"gate": {"message": "loose now?"}}}
EOF
cancel_waiting
run_sluice run "$T_DIR/loose.json"
loose=$OUT
gate_says 'loose now\?' - \
    "workflow $loose was not started from a template" "a run of a flow file"

done_testing
