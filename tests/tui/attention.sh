#!/bin/sh
# tests/tui/attention.sh: a run view opens where attention is needed: on
# the waiting gate (so y decides it at once), else on the failed step,
# else on the running one; a finished run opens on its first step.  At
# 80x24 and 200x60.  (The first console's engine ends when it quits, so
# the second size also shows a run whose interrupted attempt is retried:
# it opens on the running attempt, not the failed one.)

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

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
	scr_keys :
	scr_type "$1"
	scr_keys Enter
}

for size in 80x24 200x60; do
	scr_start "$size" --
	scr_wait "^$fail .*✗ failed"
	# Its step running again (at 200x60, the retry after the first
	# console's engine interrupted it), seen in its run view.
	open "$slow"
	scr_wait '^▶ slow +sleep'
	scr_keys q
	open "$gate"
	scr_wait '◆ go +gate'
	scr_keys Enter
	scr_ok '^◆ go +waiting' "$size: a run at a gate opens on the gate"
	scr_keys q y
	scr_ok 'approve workflow [0-9]+ gate, step go \(step [0-9]+\)' \
	    "$size: y there decides the waiting gate, not the first step"
	scr_keys Escape q
	open "$fail"
	scr_wait 'broken'
	scr_keys Enter
	scr_ok '^✗ broken +failed' "$size: a failed run opens on the failed step"
	scr_keys q q
	open "$slow"
	scr_wait 'slow'
	scr_keys Enter
	scr_ok '^▶ slow +running' "$size: a running run opens on the running step"
	scr_keys q q
	open "$fine"
	scr_wait 'second'
	scr_keys Enter
	scr_ok '^✓ start +done' "$size: a finished run opens on its first step"
	scr_stop
done

done_testing
