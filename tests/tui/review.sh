#!/bin/sh
# tests/tui/review.sh: nothing starts without a look.  Enter in the run
# form shows the equivalent command and only y starts it (keys typed by
# mistake and a second Enter start nothing); r on a schedule asks as d
# does; a confirmation's footer names its keys as they work (Enter is
# no).  At 80x24 and 200x60.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

cat >"$T_DIR/deploy.json" <<'EOF'
{"description": "deploy an app",
 "inputs": {"app": {"required": true, "description": "which app"}},
 "flow": {"start": {"tool": "echo", "args": {"app": "{{input.app}}"}}}}
EOF
run_sluice template save deploy "$T_DIR/deploy.json"
expect_rc 0 "a template with a required input"
run_sluice schedule add nightly --cron '30 2 * * *' --template deploy \
    -i app=web
expect_rc 0 "a schedule of it"

# runs: how many workflows exist.
runs() {
	q "SELECT count(*) FROM workflows"
}

# runs_above N: more than N workflows (for wait_for, which expands its
# arguments once).
runs_above() {
	[ "$(runs)" -gt "$1" ]
}

for size in 80x24 200x60; do
	scr_start "$size" --
	before=$(runs)
	scr_keys 3 Enter
	scr_ok 'run template deploy \(version 1\)' "$size: Enter opens the form"
	# The accident of the issue: q 4 Enter typed into the form.
	scr_type "q4"
	scr_keys Enter
	scr_ok 'Start sluice .*template run deploy' \
	    "$size: Enter shows the command that would start"
	scr_ok 'app=q4\?' "$size: ... with the input as typed (wrapped at 80)"
	scr_ok '^y start +any other key: back to the form' \
	    "$size: the footer says only y starts it"
	scr_keys Enter
	scr_ok 'Enter reviews the run' "$size: a second Enter goes back"
	is "$(runs)" "$before" "$size: Enter, Enter started nothing"
	scr_keys Escape
	scr_ok 'run: not started' "$size: Esc leaves the form"
	is "$(runs)" "$before" "$size: still nothing started"
	scr_keys Enter
	scr_type "shop"
	scr_keys Enter y
	scr_ok 'template run deploy -i app=shop: ' "$size: y starts it, echoed"
	wait_for runs_above "$before"
	ok $? "$size: one run started"
	before=$(runs)
	scr_keys 4 r
	scr_ok 'Fire schedule nightly now\? A run of template deploy' \
	    "$size: r on a schedule asks first"
	scr_ok '^y yes +n, Esc or any other key: no' \
	    "$size: the confirmation's footer names its keys truthfully"
	scr_keys Enter
	scr_ok 'schedule run: not sent' "$size: Enter there means no"
	is "$(runs)" "$before" "$size: nothing was fired"
	scr_stop
done

done_testing
