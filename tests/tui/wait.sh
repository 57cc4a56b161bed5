#!/bin/sh
# tests/tui/wait.sh: progress and wait steps in a real terminal, at 80x24
# and at 200x60.  A running step's row shows the progress it last
# reported ("40% copying files"); a wait step's row says it awaits
# completion from outside, and its detail says who may finish it and the
# command that does; once completed from the CLI, the console shows it
# done and the run goes on.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/tui-lib.sh"

grp=$(id -gn)
cat >"$T_DIR/wp.json" <<EOF
{"start": {"tool": "noop", "parallel": ["copy", "ticket"]},
 "copy": {"shell": "echo '::progress 40 copying files'; exec sleep 60"},
 "ticket": {"wait": {"message": "close the ticket", "by": ["deploy-bot", "@$grp"]},
   "next": "after"},
 "after": {"tool": "echo", "args": {"closed": "{{steps.ticket.result}}"}}}
EOF

for size in 80x24 200x60; do
	run_sluice run "$T_DIR/wp.json"
	id=$OUT
	tui_start "$size" --
	tui_wait 'engine: this console'
	tui_keys 1
	tui_wait 'ID +NAME +STATUS'
	tui_keys g Enter
	tui_ok "copy .*40% copying files" \
	    "$size: the running step's row shows its progress"
	tui_ok "ticket .*awaiting completion from outside" \
	    "$size: the wait step's row says it awaits completion from outside"
	w=$(step_id "$id" ticket)
	# Its row is the third: start, then the fan-out's two branches.
	tui_keys g j j Enter
	tui_ok "finished by +deploy-bot, @$grp" \
	    "$size: its detail says who may finish it"
	tui_ok "sluice complete $w" "$size: and the command that does"
	tui_ok "close the ticket" "$size: and its message"
	tui_keys q
	run_sluice complete "$w" --result '"closed"'
	expect_rc 0 "$size: complete it from the CLI while the console runs"
	wait_for step_is "$id" after done
	ok $? "$size: the run goes on past the wait step"
	tui_gone_ok "awaiting completion from outside" \
	    "$size: the console no longer shows it waiting"
	run_sluice cancel "$id"
	tui_keys q q
	tui_tmux kill-server >/dev/null 2>&1
	tui_reap "$(tui_pid)"
done

done_testing
