#!/bin/sh
# tests/tui/kinds.sh: every row of the kind table (src/util/kind.c)
# through the console and the CLI.  For each kind, a run whose gate is
# followed by a step of that kind: the gate's detail names the next step
# with its kind's label (a sub-workflow step after a gate once crashed
# the console, a wait step showed garbage), the run view draws it; once
# the gate is approved, sluice show, show --json and the step's detail
# show the step as its kind (Enter on a sub-workflow step opens its
# child's run instead).  A kind added to the table without a step
# here fails the first case.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

. "$TOP_SRCDIR/tests/screen-lib.sh"

# The kinds, walked from the table itself.
KINDS=$(sed -n 's/^	\[KIND_[A-Z]*\] = { "\([a-z]*\)".*/\1/p' \
    "$TOP_SRCDIR/src/util/kind.c")

# kind_step KIND: a step of the kind, as a flow writes it.
kind_step() {
	case $1 in
	gate)		echo '{"gate": {"message": "second gate"}}' ;;
	tool)		echo '{"tool": "echo", "args": {"v": "{{input.v}}"}}' ;;
	run)		echo '{"run": ["true"]}' ;;
	shell)		echo '{"shell": "true"}' ;;
	workflow)	echo '{"workflow": "child", "input": {"v": "1"}}' ;;
	wait)		echo '{"wait": {"message": "finish me"}}' ;;
	*)		return 1 ;;
	esac
}

# kind_next KIND: the gate detail's "next" line for it (a regex).
kind_next() {
	case $1 in
	tool)		echo 'k \(tool echo\)' ;;
	workflow)	echo 'k \(sub-workflow child\)' ;;
	*)		echo "k \\($1\\)" ;;
	esac
}

# kind_runs KIND: the step detail's "runs" line for it (a regex), or
# nothing for a kind that has none.
kind_runs() {
	case $1 in
	tool)		echo 'tool echo' ;;
	run|shell)	echo "$1 \\(inline in the flow\\)" ;;
	workflow)	echo 'sub-workflow child' ;;
	wait)		echo 'nothing: it waits to be finished from outside' ;;
	esac
}

# kind_after KIND: the status of step k once the gate is approved.
kind_after() {
	case $1 in
	gate|wait)	echo waiting ;;
	*)		echo done ;;
	esac
}

missing=
for k in $KINDS; do
	kind_step "$k" >/dev/null || missing="$missing $k"
done
is "$(echo "$KINDS" | wc -w)/$missing" "6/" \
    "every kind of the table has a step here"

cat >"$T_DIR/child.json" <<'EOF2'
{"flow": {"start": {"tool": "echo", "args": {"v": "{{input.v}}"}}}}
EOF2
run_sluice template save child "$T_DIR/child.json"
expect_rc 0 "the child template is saved"

for k in $KINDS; do
	cat >"$T_DIR/$k.json" <<EOF2
{"start": {"shell": "true", "next": "g"},
 "g": {"gate": {"message": "before a $k step"}, "next": "k"},
 "k": $(kind_step "$k")}
EOF2
	run_sluice run "$T_DIR/$k.json" --name "kind-$k" -i v=1
	expect_rc 0 "a run with a $k step after its gate is recorded"
	eval "WF_$k=\$OUT"
done

scr_start 100x30 --
scr_ok 'engine: this console' "the console runs the engine"

for k in $KINDS; do
	eval "wf=\$WF_$k"
	wait_for step_is "$wf" g waiting
	ok $? "$k: the run waits at its gate"
	scr_open_step "kind-$k" g
	ok $? "$k: the gate's detail opens"
	scr_keys G
	scr_ok "^  next +$(kind_next "$k")\$" \
	    "$k: the gate's detail names the next step with its kind"
	scr_keys Escape
	scr_ok "^#$wf kind-$k " "$k: the run view draws the run"
	run_sluice approve "$(step_id "$wf" g)" -m ok
	expect_rc 0 "$k: the gate is approved"
	wait_for step_is "$wf" k "$(kind_after "$k")"
	ok $? "$k: step k is $(kind_after "$k") after the gate"
	run_sluice show "$wf"
	expect_rc 0 "$k: sluice show"
	like "$OUT" "k" "$k: sluice show lists step k"
	run_sluice show "$wf" --json
	is "$(json_query "$OUT" "SELECT json_extract(s.value, '\$.kind')
	    FROM d, json_each(json_extract(d.j, '\$.steps')) AS s
	    WHERE json_extract(s.value, '\$.key') = 'k'")" "$k" \
	    "$k: show --json gives step k its kind"
	if [ "$k" = workflow ]; then
		# Enter on a sub-workflow step opens its child's run.
		scr_open_row "kind-$k" k && scr_wait "^#[0-9]+ child "
		ok $? "$k: Enter on step k opens its child's run"
		scr_ok "^#[0-9]+ child +. completed +child@1 .*child of #$wf" \
		    "$k: the child's run view names its parent"
		continue
	fi
	scr_open_step "kind-$k" k
	ok $? "$k: step k's detail opens"
	if [ -n "$(kind_runs "$k")" ]; then
		scr_ok "^  runs +$(kind_runs "$k")\$" \
		    "$k: the step's detail says what it runs"
	else
		scr_gone_ok '^  runs ' "$k: a gate's detail runs nothing"
	fi
done

scr_stop
scr_sanitizers_ok "no sanitizer report from the console"

done_testing
