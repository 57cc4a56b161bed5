#!/bin/sh
# tests/tui/wait.sh: progress and wait steps in the console, at 80x24
# and at 200x60.  A running step's row shows the progress it last
# reported ("40% copying files"); a wait step's row says it awaits
# completion from outside, and its detail says who may finish it and the
# command that does; once completed from the CLI, the console shows it
# done and the run goes on.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

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
	scr_start "$size" --
	scr_wait 'engine: this console'
	scr_keys 1
	scr_wait 'ID +NAME +STATUS'
	scr_keys g Enter
	scr_ok "copy .*40% copying files" \
	    "$size: the running step's row shows its progress"
	scr_ok "ticket .*awaiting completion from outside" \
	    "$size: the wait step's row says it awaits completion from outside"
	w=$(step_id "$id" ticket)
	# Its row is the third: start, then the fan-out's two branches.
	scr_keys g j j Enter
	scr_ok "finished by +deploy-bot, @$grp" \
	    "$size: its detail says who may finish it"
	scr_ok "sluice complete $w" "$size: and the command that does"
	scr_ok "close the ticket" "$size: and its message"
	scr_keys q
	run_sluice complete "$w" --result '"closed"'
	expect_rc 0 "$size: complete it from the CLI while the console runs"
	wait_for step_is "$id" after done
	ok $? "$size: the run goes on past the wait step"
	scr_gone_ok "awaiting completion from outside" \
	    "$size: the console no longer shows it waiting"
	run_sluice cancel "$id"
	scr_keys q q
	scr_stop
done

done_testing
