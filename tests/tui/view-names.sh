#!/bin/sh
# tests/tui/view-names.sh: the header names every view and what it shows:
# the top views by name, "Run N NAME", "Step N NAME, run N", "Log of step
# N NAME", "Versions: TEMPLATE", "Diff: TEMPLATE vA..vB", "Help: VIEW",
# "Messages".  Where the line is short (80 columns) the view's name wins
# over the database's path, which then goes (a top view, named by its
# columns, gives its name up instead).  At 80x24 and 200x60.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

db_init
cat >"$T_DIR/v1.json" <<'EOF2'
{
  "description": "restart the web tier",
  "flow": {
    "start": {"tool": "echo", "args": {"batch": 1}, "next": "restart"},
    "restart": {"tool": "noop", "done": true}
  }
}
EOF2
sed 's/"batch": 1/"batch": 2/' "$T_DIR/v1.json" >"$T_DIR/v2.json"
run_sluice template save deploy-release "$T_DIR/v1.json"
run_sluice template save deploy-release "$T_DIR/v2.json"
run_sluice run deploy-release --name rolling-restart --wait
id=$(q "SELECT id FROM workflows WHERE name = 'rolling-restart'")
sid=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $id AND name = 'restart'")

for size in 80x24 200x60; do
	scr_start "$size" --
	scr_ok '^sluice [^ ]+ · Workflows ' "$size: the Workflows view"
	scr_keys 2
	scr_ok '^sluice [^ ]+ · Gates ' "$size: the Gates view"
	scr_keys 3
	scr_ok '^sluice [^ ]+ · Templates ' "$size: the Templates view"
	scr_keys v
	scr_ok '^(sluice [^ ]+ · )?Versions: deploy-release ' \
	    "$size: the Versions view names its template"
	scr_keys Enter
	scr_ok '^(sluice [^ ]+ · )?Diff: deploy-release v1..v2 ' \
	    "$size: the diff names the template and its versions"
	scr_keys 4
	scr_ok '^sluice [^ ]+ · Schedules ' "$size: the Schedules view"
	scr_keys 5
	scr_ok '^sluice [^ ]+ · Audit ' "$size: the Audit view"
	scr_keys 1
	scr_wait "^$id +rolling-restart" || true
	scr_keys Enter
	scr_ok "^(sluice [^ ]+ · )?Run $id rolling-restart " \
	    "$size: the run view names the run"
	scr_keys G Enter
	scr_ok "^(sluice [^ ]+ · )?Step $sid restart, run $id " \
	    "$size: the step view names the step and its run"
	scr_keys l
	scr_ok "^(sluice [^ ]+ · )?Log of step $sid restart " \
	    "$size: the log names its step"
	scr_keys ?
	scr_ok "^(sluice [^ ]+ · )?Help: Log " \
	    "$size: the help names the view whose keys it lists first"
	scr_keys q m
	scr_ok "^(sluice [^ ]+ · )?Messages " "$size: the message history"
done

# 200 columns: the whole path too; 80: the name of a run's view wins.
scr_start 200x60 --
scr_keys 3 v
scr_ok "^sluice .*\.db · Versions: deploy-release +engine:" \
    "200 columns: the path, then the view and its template"
scr_start 80x24 --
scr_keys 3 v
scr_ok "^Versions: deploy-release +engine: this console" \
    "80 columns: the view's name wins over the path"
scr_keys q
scr_ok "^sluice …[^ ]*\.db · Templates +engine:" \
    "80 columns: a short name leaves room for the path's end"
scr_keys 1
scr_wait "^$id +rolling-restart" || true
scr_keys Enter
scr_ok "^Run $id rolling-restart +engine: this console" \
    "80 columns: so does the run's"
scr_start 200x60 LANG=C LC_ALL=C --
scr_keys 3 v
scr_ok "^sluice /[^ ]*\.db - Versions: deploy-release +engine:" \
    "LANG=C: the same, in ASCII"

scr_sanitizers_ok "no sanitizer report from the consoles"
done_testing
