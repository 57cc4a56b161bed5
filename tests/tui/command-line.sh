#!/bin/sh
# tests/tui/command-line.sh: the ":" line answers a mistyped command with
# the nearest one ("did you mean"), and Tab completes: a command's name,
# then its argument (a template's name after :run and :versions, a
# workflow's id after :open; a mistyped template is answered with the
# nearest one too); with several choices each Tab puts the next
# one in (BTab the one before), the footer listing them all.  At 80x24
# and 200x60.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

db_init
cat >"$T_DIR/t.json" <<'EOF2'
{"description": "a template", "flow": {"start": {"tool": "noop"}}}
EOF2
run_sluice template save deploy-release "$T_DIR/t.json"
run_sluice template save deploy-db "$T_DIR/t.json"
run_sluice template save backup "$T_DIR/t.json"
run_sluice run backup --name nightly --wait
id=$(q "SELECT id FROM workflows WHERE name = 'nightly'")

for size in 80x24 200x60; do
	scr_start "$size" --
	scr_wait 'Enter open' || true
	scr_keys :
	scr_type gaets
	scr_keys Enter
	scr_ok 'unknown command :gaets \(did you mean :gates\?\)' \
	    "$size: :gaets suggests :gates"
	scr_keys :
	scr_type frobnicate
	scr_keys Enter
	scr_ok 'unknown command :frobnicate \(:workflows ' \
	    "$size: a word near none lists the commands"
	scr_ok 'Tab completes\)' "$size: ... and says Tab completes"

	scr_keys :
	scr_type ga
	scr_keys Tab
	scr_ok '^:gates$' "$size: Tab completes the one command ga begins"
	scr_keys Enter
	scr_ok '^sluice [^ ]+ · Gates' "$size: ... which then runs"

	scr_keys :
	scr_type "run dep"
	scr_keys Tab
	scr_ok '^:run deploy-db$' "$size: Tab after :run offers templates"
	scr_ok '^Tab/BTab: \[deploy-db\] deploy-release' \
	    "$size: ... the footer lists the choices, this one marked"
	scr_keys Tab
	scr_ok '^:run deploy-release$' "$size: Tab again puts in the next"
	scr_keys Tab
	scr_ok '^:run deploy-db$' "$size: ... and goes round"
	scr_keys BTab
	scr_ok '^:run deploy-release$' "$size: BTab goes back"
	scr_keys Escape

	scr_keys :
	scr_type "ver"
	scr_keys Tab
	scr_ok '^:versions$' "$size: :ver completes to :versions"
	scr_type "ba"
	scr_keys Tab
	scr_ok '^:versions backup$' "$size: ... and then a template's name"
	scr_keys Enter
	scr_ok 'Versions: backup' "$size: ... whose versions open"

	scr_keys :
	scr_type "open "
	scr_keys Tab
	scr_ok "^:open $id\$" "$size: Tab after :open offers workflow ids"
	scr_keys Enter
	scr_ok "Run $id nightly" "$size: ... and the run opens"

	scr_keys :
	scr_type "run deplyo-release"
	scr_keys Enter
	scr_ok 'no template deplyo-release \(did you mean deploy-release\?\)' \
	    "$size: :run of a mistyped template suggests the nearest"

	scr_keys :
	scr_type zz
	scr_keys Tab
	scr_ok '^:zz$' "$size: Tab with nothing to offer leaves the line"
	scr_keys Escape
done

scr_sanitizers_ok "no sanitizer report from the consoles"
done_testing
