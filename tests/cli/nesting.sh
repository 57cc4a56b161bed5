#!/bin/sh
# tests/cli/nesting.sh: every nesting of fan-outs and joins two levels
# deep.  An outer fan-out (start: a, b) whose join is named on the fan-out
# step or on its branches; in one or both branches an inner fan-out,
# straight away or after a next, whose join is named on the inner
# fan-out step, on its branches, on both, or not at all (its branches
# then meet at the outer join); an inner join that goes on to the outer
# one by its own join or through a next.  Each form passes check and runs
# every step once, each join after all its branches.  A fan-out naming
# one join while its branches reach another, and branches reaching two
# joins, are refused by check with the path and the form that works.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

# inner X OUTERJOIN PLACE CONT: the steps of branch X (a or b), an inner
# fan-out X1, X2 with its join named at PLACE (fan, branch, both or
# shared), going on to OUTERJOIN (empty: the branch just ends) by CONT
# (join or next).  Sets $steps to how many steps it wrote.
inner() {
	x=$1 oj=$2 place=$3 cont=$4
	fj="" bj=""
	case $place in
	fan)	fj=", \"join\": \"${x}j\"" ;;
	branch)	bj=", \"join\": \"${x}j\"" ;;
	both)	fj=", \"join\": \"${x}j\""; bj=$fj ;;
	shared)	[ -n "$oj" ] && bj=", \"join\": \"$oj\"" ;;
	esac
	to=""
	[ -n "$oj" ] && to=", \"join\": \"$oj\""
	if [ "$AFTER" = 1 ]; then
		printf '"%s": {"tool": "noop", "next": "%sm"},\n' "$x" "$x"
		printf '"%sm": {"tool": "noop", "parallel": ["%s1", "%s2"]%s},\n' \
		    "$x" "$x" "$x" "$fj"
	else
		printf '"%s": {"tool": "noop", "parallel": ["%s1", "%s2"]%s},\n' \
		    "$x" "$x" "$x" "$fj"
	fi
	printf '"%s1": {"tool": "noop"%s},\n"%s2": {"tool": "noop"%s},\n' \
	    "$x" "$bj" "$x" "$bj"
	[ "$place" = shared ] && return
	if [ "$cont" = next ]; then
		printf '"%sj": {"tool": "noop", "next": "%sk"},\n' "$x" "$x"
		printf '"%sk": {"tool": "noop"%s},\n' "$x" "$to"
	else
		printf '"%sj": {"tool": "noop"%s},\n' "$x" "$to"
	fi
}

# plain X OUTERJOIN: a branch with no fan-out of its own.
plain() {
	to=""
	[ -n "$2" ] && to=", \"join\": \"$2\""
	printf '"%s": {"tool": "noop"%s},\n' "$1" "$to"
}

# order_ok WF: every row done, each step once, each inner join after its
# branches and the outer join last.
order_ok() {
	[ "$(q "SELECT count(*) FROM workflow_steps WHERE workflow_id = $1
	    AND status != 'done'")" = 0 ] || return 1
	[ "$(q "SELECT count(*) - count(DISTINCT name) FROM workflow_steps
	    WHERE workflow_id = $1")" = 0 ] || return 1
	[ "$(q "SELECT name FROM workflow_steps WHERE workflow_id = $1
	    ORDER BY id DESC LIMIT 1")" = j ] || return 1
	for x in a b; do
		jid=$(q "SELECT id FROM workflow_steps WHERE workflow_id = $1
		    AND name = '${x}j'")
		[ -z "$jid" ] && continue
		[ "$(q "SELECT count(*) FROM workflow_steps WHERE
		    workflow_id = $1 AND name IN ('${x}1', '${x}2')
		    AND id < $jid AND completed_at <= (SELECT started_at
		    FROM workflow_steps WHERE id = $jid)")" = 2 ] || return 1
	done
	return 0
}

n=0
for outer in fan branch; do
for both in 0 1; do
for AFTER in 0 1; do
for place in fan branch both shared; do
for cont in join next; do
	[ "$place" = shared ] && [ "$cont" = next ] && continue
	if [ "$outer" = fan ]; then
		sj=', "join": "j"' oj=""
		[ "$place" = shared ] && oj=""
	else
		sj="" oj=j
	fi
	name="outer-$outer.both-$both.after-$AFTER.inner-$place.cont-$cont"
	{
		printf '{"start": {"tool": "noop", "parallel": ["a", "b"]%s},\n' "$sj"
		inner a "$oj" "$place" "$cont"
		if [ "$both" = 1 ]; then
			inner b "$oj" "$place" "$cont"
		else
			plain b "$oj"
		fi
		printf '"j": {"tool": "noop", "done": true}}\n'
	} >"$T_DIR/$name.json"
	run_sluice check "$T_DIR/$name.json"
	expect_rc 0 "$name: check passes"
	wait_run "$T_DIR/$name.json"
	expect_rc 0 "$name: the run completes"
	order_ok "$ID"
	ok $? "$name: every step once, each join after its branches"
	n=$((n + 1))
done
done
done
done
done
ok 0 "$n forms run"

# --- forms refused --------------------------------------------------------------

cat >"$T_DIR/inner-named-outer.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"]},
 "a": {"tool": "noop", "parallel": ["a1", "a2"], "join": "j"},
 "a1": {"tool": "noop", "join": "aj"},
 "a2": {"tool": "noop", "join": "aj"},
 "aj": {"tool": "noop"},
 "b": {"tool": "noop", "join": "j"},
 "j": {"tool": "noop", "done": true}}
EOF
run_sluice check "$T_DIR/inner-named-outer.json"
expect_rc 2 "an inner fan-out naming the outer join while its branches reach their own is refused"
like "$ERR" "inner-named-outer.json:2:" "with the line"
like "$ERR" "\$.a.join: fan-out \"a\" names join \"j\", but its branch \$.a1 reaches join \"aj\" first, which would never run: write \"join\": \"aj\" here and give \"aj\" \"join\": \"j\" to go on to the outer join" \
    "with the path and the form that works"
run_sluice run --wait "$T_DIR/inner-named-outer.json"
expect_rc 2 "run refuses it too"

cat >"$T_DIR/two-joins.json" <<'EOF'
{"start": {"tool": "noop", "parallel": ["a", "b"]},
 "a": {"tool": "noop", "join": "x"},
 "b": {"tool": "noop", "join": "y"},
 "x": {"tool": "noop"}, "y": {"tool": "noop"}}
EOF
run_sluice check "$T_DIR/two-joins.json"
expect_rc 2 "branches of one fan-out reaching two joins are refused"
like "$ERR" "\$.start.parallel: the branches of fan-out \"start\" reach different joins: \"x\" (from \"a\") and \"y\" (from \"b\")" \
    "naming both joins and the branches that reach them"

done_testing
