#!/bin/sh
# tests/tui/live-filter.sh: "/" narrows the view as each character is
# typed, as htop and k9s do; Enter keeps the filter, Esc clears it and
# puts the cursor back on the row it was on before.  In the Workflows,
# Gates, Templates and run views, and the log pager's search; at 80x24
# and 200x60.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

db_init
cat >"$T_DIR/gate.json" <<'EOF2'
{"start": {"tool": "noop", "next": "approve"},
 "approve": {"gate": {"message": "Ship it?"}, "next": "finish"},
 "finish": {"tool": "noop"}}
EOF2
cat >"$T_DIR/t.json" <<'EOF2'
{"description": "a template", "flow": {"start": {"tool": "noop"}}}
EOF2
run_sluice template save deploy-release "$T_DIR/t.json"
run_sluice template save backup "$T_DIR/t.json"
# The oldest run: the newest, backup, is on the first row.
cat >"$T_DIR/talk.json" <<'EOF2'
{"say": {"shell": "printf 'alpha\\nbeta\\nbetamax\\n'"}}
EOF2
run_sluice run "$T_DIR/talk.json" --name talker
for n in deploy-web deploy-db backup; do
	run_sluice run "$T_DIR/gate.json" --name "$n"
done
bid=$(q "SELECT id FROM workflows WHERE name = 'backup'")

for size in 80x24 200x60; do
	scr_start "$size" --
	scr_wait '◆ waiting' || true
	scr_wait '^[0-9]+ +deploy-web ' || true
	# The cursor on backup (the newest, the first row).
	scr_keys /
	scr_type d
	scr_ok '^filter: d$' "$size: / opens the filter line"
	scr_gone_ok '^[0-9]+ +backup ' "$size: one character narrows the list"
	scr_ok '^[0-9]+ +deploy-web ' "$size: ... keeping the rows that match"
	scr_type b
	scr_gone_ok '^[0-9]+ +deploy-web ' "$size: the next narrows it further"
	scr_ok '^[0-9]+ +deploy-db ' "$size: ... to deploy-db"
	scr_keys BSpace
	scr_ok '^[0-9]+ +deploy-web ' "$size: BSpace widens it again"
	scr_keys Escape
	scr_ok '^[0-9]+ +backup ' "$size: Esc clears the filter"
	scr_gone_ok '^filter:' "$size: ... and closes the line"
	scr_keys Enter
	scr_ok "Run $bid backup" \
	    "$size: ... the cursor back on the row it was on (backup)"
	scr_keys q /
	scr_type web
	scr_keys Enter
	scr_ok 'filter: web \(Esc clears\)' "$size: Enter keeps the filter"
	scr_gone_ok '^[0-9]+ +deploy-db ' "$size: ... narrowed"
	scr_keys Escape
	scr_ok '^[0-9]+ +deploy-db ' "$size: Esc on the view clears it"
	scr_keys Enter
	scr_ok "Run $bid backup" "$size: ... and the cursor is back too"

	# The run view: its steps.
	scr_keys /
	scr_type appr
	scr_gone_ok '^. start ' "$size: the run view narrows as typed"
	scr_ok '^. approve ' "$size: ... to the matching step"
	scr_keys Escape
	scr_ok '^. start ' "$size: Esc shows every step again"

	# Gates and Templates.
	scr_keys 2 /
	scr_type backup
	scr_gone_ok 'deploy-web' "$size: the Gates view narrows as typed"
	scr_ok 'backup' "$size: ... to backup's gate"
	scr_keys Escape 3 /
	scr_type dep
	scr_gone_ok '^backup ' "$size: the Templates view narrows as typed"
	scr_ok '^deploy-release ' "$size: ... to deploy-release"
	scr_keys Escape
	scr_ok '^backup ' "$size: Esc shows every template again"

	# The log pager: the search goes to the hits as the term grows.
	scr_open_step talker say || true
	scr_keys l
	scr_wait 'betamax' || true
	scr_keys /
	scr_type bet
	scr_ok '/bet 1/2 ' "$size: the log's search finds hits as typed"
	scr_type am
	scr_ok '/betam 1/1 ' "$size: ... fewer as the term grows"
	scr_keys Escape
	scr_gone_ok '/betam' "$size: Esc clears the search"
done

scr_sanitizers_ok "no sanitizer report from the consoles"
done_testing
