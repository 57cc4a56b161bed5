#!/bin/sh
# tests/cli/retry-dry.sh: "sluice retry ID [--from STEP] --dry-run" says
# what a retry would run again, in the words the console's R shows before
# it asks (one function, engine/retry-preview.c), true in every case:
# a plain retry keeps the steps that completed; --from names the steps
# that completed and run again.  It changes nothing, and is refused (with
# the same reason and exit status) where the retry would be.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

db_init
cat >"$T_DIR/broken.json" <<'J'
{"start": {"name": "prepare", "tool": "noop", "next": "copy"},
 "copy": {"tool": "noop", "next": "check"},
 "check": {"tool": "fail", "args": {"message": "disk full"},
  "retry": {"max_attempts": 1}}}
J
cat >"$T_DIR/fine.json" <<'J'
{"start": {"tool": "noop"}}
J
run_sluice run --wait "$T_DIR/broken.json"
expect_rc 1 "the broken run fails"
id=$(q "SELECT max(id) FROM workflows")
run_sluice run --wait "$T_DIR/fine.json"
expect_rc 0 "the fine run completes"
fine=$(q "SELECT max(id) FROM workflows")
rows=$(q "SELECT count(*) FROM workflow_steps")
audits=$(q "SELECT count(*) FROM audit")

run_sluice retry "$id" --dry-run
expect_rc 0 "retry --dry-run on a failed run"
is "$OUT" "Retry workflow $id broken: check (failed) runs again, and what follows it as the flow leads; the steps that completed keep their results and do not run again." \
    "it says the failed step runs again and the completed ones are kept"

run_sluice retry "$id" --from prepare --dry-run
expect_rc 0 "retry --from --dry-run"
is "$OUT" "Retry workflow $id broken from prepare: prepare, copy, check (3 steps) may run again as the flow leads, completed or not: prepare, copy have completed. The other steps keep their results." \
    "--from names the completed steps that run again"
unlike "$OUT" "Completed steps are kept" "never the untrue \"Completed steps are kept\""

run_sluice retry "$id" -n --from copy
expect_rc 0 "-n is --dry-run"
like "$OUT" "from copy: copy, check (2 steps)" "-n says the same"

is "$(q "SELECT status FROM workflows WHERE id = $id")" failed \
    "the run is still failed: nothing was retried"
is "$(q "SELECT count(*) FROM workflow_steps")" "$rows" "no step row was added"
is "$(q "SELECT count(*) FROM audit")" "$audits" "nothing was audited"

# Refused as the retry is: the same reason, the same exit status.
run_sluice retry "$fine"
real_rc=$RC real_err=$ERR
run_sluice retry "$fine" --dry-run
is "$RC:$ERR" "$real_rc:$real_err" \
    "a completed run: refused with the retry's own reason and status"
is "$RC" 4 "... exit 4"
run_sluice retry 999 --dry-run
expect_rc 3 "no such workflow: exit 3"
run_sluice retry "$id" --from nope --dry-run
expect_rc 2 "no such step: exit 2"
like "$ERR" "has no step \"nope\"" "... saying which"

# Then the retry itself runs again what the dry run said.
last=$(q "SELECT max(id) FROM workflow_steps WHERE workflow_id = $id")
run_sluice retry "$id" --from copy
expect_rc 0 "the retry --from copy"
engine_start
wait_for wf_ended "$id"
is "$(q "SELECT group_concat(name, ' ') FROM (SELECT name FROM
    workflow_steps WHERE workflow_id = $id AND id > $last ORDER BY id)")" \
    "copy check" \
    "copy and check ran again, as the dry run said"
engine_stop
done_testing
