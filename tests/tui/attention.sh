#!/bin/sh
# tests/tui/attention.sh: a run view opens where attention is needed: on
# the waiting gate (so y decides it at once), else on the failed step,
# else on the running one; a finished run opens on its first step.  At
# 80x24 and 200x60.  (The first console's engine ends when it quits, so
# the second size also shows a run whose interrupted attempt is retried:
# it opens on the running attempt, not the failed one.)

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/tui-lib.sh"

cat >"$T_DIR/gate.json" <<'EOF'
{"start": {"tool": "noop", "next": "prepare"},
 "prepare": {"tool": "noop", "next": "go"},
 "go": {"gate": {"message": "go on?"}, "next": "finish"},
 "finish": {"tool": "noop"}}
EOF
cat >"$T_DIR/fail.json" <<'EOF'
{"start": {"tool": "noop", "next": "broken"},
 "broken": {"tool": "fail", "args": {"message": "disk full"},
            "retry": {"max_attempts": 1}, "next": "never"},
 "never": {"tool": "noop"}}
EOF
cat >"$T_DIR/slow.json" <<'EOF'
{"start": {"tool": "noop", "next": "slow"},
 "slow": {"tool": "sleep", "args": {"seconds": 60},
          "retry": {"max_attempts": 5, "backoff": ["100ms"]}}}
EOF
cat >"$T_DIR/fine.json" <<'EOF'
{"start": {"tool": "noop", "next": "second"},
 "second": {"tool": "noop"}}
EOF
run_sluice run "$T_DIR/gate.json"
gate=$OUT
run_sluice run "$T_DIR/fail.json"
fail=$OUT
run_sluice run "$T_DIR/slow.json"
slow=$OUT
run_sluice run "$T_DIR/fine.json"
fine=$OUT

# open ID: open a run by its id from the command line.
open() {
	tui_keys :
	tui_type "$1"
	tui_keys Enter
}

for size in 80x24 200x60; do
	tui_start "$size" --
	wait_for wf_is "$fail" failed
	wait_for step_is "$slow" slow running
	open "$gate"
	tui_wait '◆ go +gate'
	tui_keys Enter
	tui_ok '^◆ go +waiting' "$size: a run at a gate opens on the gate"
	tui_keys q y
	tui_ok 'approve go \(step [0-9]+\)' \
	    "$size: y there decides the waiting gate, not the first step"
	tui_keys Escape q
	open "$fail"
	tui_wait 'broken'
	tui_keys Enter
	tui_ok '^✗ broken +failed' "$size: a failed run opens on the failed step"
	tui_keys q q
	open "$slow"
	tui_wait 'slow'
	tui_keys Enter
	tui_ok '^▶ slow +running' "$size: a running run opens on the running step"
	tui_keys q q
	open "$fine"
	tui_wait 'second'
	tui_keys Enter
	tui_ok '^✓ start +done' "$size: a finished run opens on its first step"
	tui_stop
done

done_testing
