#!/bin/sh
# tests/recover-kinds.sh: the for-each and DAG runs a recovery must resume
# in numbers, read at once (src/store/recover-foreach.c), shared by
# tests/cli/recover-batch.sh (SQLite: an engine restarted after kill -9)
# and tests/cluster/takeover-runs.sh (PostgreSQL: a takeover).  The test
# sets T_DIR, LEDGER, GO (a wait for $T_DIR/go, so a step is mid-run at
# the kill), line() (a step's ledger line) and RK_SQL (the command that
# answers a query: q or pg_sql).

# rk_flows BACKOFF: the flows each.json, batch.json, gated.json,
# dagrun.json and dagedit.json in $T_DIR; BACKOFF is batch.json's retry
# wait, longer than the runs take to get in place.
rk_flows() {
	_il="echo item-\$ITEM:\$SLUICE_WORKFLOW_ID:\$SLUICE_STEP_ID >> $LEDGER"
	cat >"$T_DIR/each.json" <<JSON
{"start": {"foreach": ["i1", "i2", "i3", "i4", "i5", "i6"], "concurrency": 2,
  "do": {"shell": "[ \$ITEM = i1 ] || { $GO; }; $_il",
    "env": {"ITEM": "{{item}}"}}}}
JSON
	# b1 runs until cancelled before the kill (a failure within the
	# budget), b2 fails once (then waits out the backoff), b7 runs until
	# cancelled after it: that failure spends the budget, and a gate asks.
	cat >"$T_DIR/batch.json" <<JSON
{"start": {"foreach": ["b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"],
  "batch": 3, "concurrency": 3, "max_failures": 1, "on_budget_spent": "ask",
  "do": {"shell": "case \$ITEM in b1|b7) sleep 600;; b2) [ \$SLUICE_ATTEMPT -ge 2 ] || exit 1;; esac; $_il",
    "env": {"ITEM": "{{item}}"}, "retry": {"max_attempts": 2, "backoff": ["$1"]}}}}
JSON
	cat >"$T_DIR/gated.json" <<JSON
{"start": {"foreach": ["g1", "g2", "g3", "g4", "g5", "g6"], "batch": 2,
  "gate_between_batches": {"message": "next batch?"},
  "do": {"shell": "case \$ITEM in g1|g2) ;; *) $GO;; esac; $_il",
    "env": {"ITEM": "{{item}}"}}}}
JSON
	cat >"$T_DIR/dagrun.json" <<JSON
{"a": {"shell": "$(line dagrun-a)"},
 "b": {"shell": "$GO; $(line dagrun-b)"},
 "c": {"shell": "$(line dagrun-c)", "depends_on": ["a", "b"]},
 "d": {"shell": "$(line dagrun-d)", "depends_on": ["a"]},
 "e": {"shell": "$(line dagrun-e)", "depends_on": ["c", "d"]}}
JSON
	cat >"$T_DIR/dagedit.json" <<JSON
{"a": {"shell": "$(line dagedit-a)"},
 "b": {"gate": {"message": "ended behind the engine's back"}},
 "c": {"shell": "$(line dagedit-c)", "depends_on": ["a", "b"]},
 "e": {"shell": "$(line dagedit-e)", "depends_on": ["c"]}}
JSON
}

# items NAME STATUS [MORE]: how many item rows of NAME's runs have STATUS.
items() {
	$RK_SQL "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE w.name = '$1' AND s.status = '$2'
	    AND s.item_index >= 0 ${3:-}"
}
# named NAME STEP STATUS: how many rows of step STEP of NAME's runs.
named() {
	$RK_SQL "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE w.name = '$1' AND s.name = '$2'
	    AND s.status = '$3' AND s.item_index IS NULL"
}
# Before the kill: each batch run's b1 runs (to be cancelled, a failure
# the budget allows), each gated run asks before batch 2, each dagedit
# run's gate waits (to be ended in the table, unknown to the engine).
early() {
	[ "$(items batch running "AND s.item_index = 0")" -eq "$K" ] &&
	[ "$($RK_SQL "SELECT count(*) FROM workflow_steps s JOIN workflows w
	    ON w.id = s.workflow_id WHERE w.name = 'gated'
	    AND s.status = 'waiting' AND s.label = 'before batch 2 of 3'")" \
	    -eq "$K" ] &&
	[ "$(named dagedit b waiting)" -eq "$K" ] &&
	[ "$(named dagedit a done)" -eq "$K" ]
}
