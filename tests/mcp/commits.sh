#!/bin/sh
# tests/mcp/commits.sh: an MCP tool step commits no more often than a plain
# step.  Its log lines (the server's, and sluice's "[mcp]" line per stage
# of the exchange) wait for the step's next commit instead of each making
# one.  Commits are counted, not timed: the engine's $SLUICE_TRACE has a
# "C" line per commit.  A chain of N MCP steps (tests/mcp/fake-server.sh)
# and one of N "true" steps each run under "engine --drain"; the MCP
# chain may commit a few times more in all (a step slower than a second
# under load lets its lines be written on their own), never once more per
# step.  With $SLUICE_TEST_LOG_NOW (test builds) every line is written at
# once, as before: the same comparison must then fail, so it can.

. "$TOP_SRCDIR/tests/lib.sh"

FAKE="$TOP_SRCDIR/tests/mcp/fake-server.sh"
export SLUICE_TOOLS="$T_DIR/tools.json"
cat >"$SLUICE_TOOLS" <<EOF
{"fake": {"mcp": {"run": ["$FAKE", "structured"]}, "tool": "do-it",
  "retry": {"max_attempts": 1}}}
EOF
N=10

# chain FILE STEP: a flow of $N steps, each STEP (a JSON object's members).
chain() {
	awk -v n="$N" -v step="$2" 'BEGIN {
		printf "{"
		for (i = 1; i <= n; i++)
			printf "%s\"s%d\": {%s%s}", (i > 1 ? ", " : ""), i,
			    step, (i < n ? ", \"next\": \"s" (i + 1) "\"" : "")
		print "}"
	}' >"$1"
}
chain "$T_DIR/mcp.json" '"tool": "fake"'
chain "$T_DIR/plain.json" '"run": ["true"]'

# commits NAME [ENV]: run flow NAME alone on a fresh database with
# "engine --drain" (ENV in its environment); print its commits, and the
# rows done and the [mcp] lines logged after them.
commits() {
	db="$T_DIR/$1-$$-${2:-x}.db"
	trace="$db.trace"
	db_init "$db"
	SLUICE_DB="$db" "$SLUICE" run "$T_DIR/$1.json" >/dev/null 2>&1
	env ${2:-} SLUICE_DB="$db" SLUICE_TRACE="$trace" "$SLUICE" engine \
	    --drain >/dev/null 2>"$T_DIR/engine.err"
	printf '%s %s %s\n' "$(grep -c '^C' "$trace")" \
	    "$(sqlite3 "$db" "SELECT count(*) FROM workflow_steps
		WHERE status = 'done'")" \
	    "$(sqlite3 "$db" "SELECT count(*) FROM step_logs
		WHERE stream = 'sluice' AND CAST(data AS TEXT) LIKE '[mcp]%'")"
}

set -- $(commits plain)
plain=$1
is "$2" "$N" "plain: the $N steps are done"
set -- $(commits mcp)
mcp=$1
is "$2" "$N" "mcp: the $N MCP steps are done"
is "$3" "$((N * 4))" "mcp: every step's four [mcp] lines are in its log"
ok "$([ "$mcp" -le $((plain + N / 3)) ]; echo $?)" \
    "mcp: $mcp commits for $N MCP steps, no more than plain's $plain (+ $((N / 3)))"

# The check fails when each line commits on its own (the old behaviour).
set -- $(commits mcp SLUICE_TEST_LOG_NOW=1)
is "$2|$3" "$N|$((N * 4))" "log now: the steps are done, their lines logged"
ok "$([ "$1" -gt $((plain + N / 3)) ]; echo $?)" \
    "log now: $1 commits, more than plain's $plain (+ $((N / 3))): the check above can fail"

done_testing
