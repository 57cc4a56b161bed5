#!/bin/sh
# tests/cli/quickstart.sh: "./quickstart demo" as a newcomer runs it, on a
# copy of the tree with the sluice this build made (QUICKSTART_BUILD, so
# no packages and no second build): a line per stage, the demo's runs in
# the states README promises, the command to open the console again (on
# a terminal too), an existing demo database kept, and --rebuild making
# it anew.

. "$TOP_SRCDIR/tests/lib.sh"

command -v script >/dev/null 2>&1 || skip_all "script(1) is not installed"

# The parts of the tree the demo reads; the demo writes its own there.
top=$T_DIR/tree
mkdir -p "$top"
cp "$TOP_SRCDIR/quickstart" "$top/"
ln -s "$TOP_SRCDIR/share" "$TOP_SRCDIR/man" "$top/"
bdir=$(cd "$(dirname "$SLUICE")" && pwd)
unset SLUICE_DB SLUICE_TOOLS

demo() {
	env QUICKSTART_BUILD="$bdir" sh "$top/quickstart" demo "$@" \
	    >"$T_DIR/qs.out" 2>"$T_DIR/qs.err" </dev/null
	RC=$?
	OUT=$(cat "$T_DIR/qs.out")
}
db=$top/demo/sluice.db
q_demo() {
	sqlite3 "$db" "$1"
}

demo
is "$RC" 0 "quickstart demo exits 0"
is "$(cat "$T_DIR/qs.err")" "" "and writes nothing on stderr"
like "$OUT" "quickstart: using the sluice built in $bdir" "it says which sluice"
like "$OUT" "quickstart: making the demo database $db" "a line: making the database"
like "$OUT" "quickstart: saving the example templates, running a few workflows" \
    "a line: saving templates and running workflows"
like "$OUT" "To open the console on the demo (again, after q):" \
    "it says how to open the console again"
like "$OUT" "XDG_CONFIG_HOME=$top/demo/config $bdir/sluice" "with the whole command"
like "$OUT" "or ./quickstart demo, which keeps this database." \
    "and that quickstart keeps the database"
is "$(q_demo "SELECT group_concat(name, ' ') FROM (SELECT w.name FROM
    workflows w WHERE w.status = 'running' AND EXISTS (SELECT 1 FROM
    workflow_steps s WHERE s.workflow_id = w.id AND s.status = 'waiting')
    ORDER BY w.id)")" "rolling-restart offboard-user" \
    "two runs wait at gates: the rolling restart first, then offboarding"
is "$(q_demo "SELECT count(*) FROM workflows WHERE status = 'failed'")" 1 \
    "the unhealthy canary failed"
is "$(q_demo "SELECT status FROM workflows WHERE name = 'deploy-release'")" \
    completed "the release published with the site secret completed"
token=$(cat "$top/demo/config/sluice/secrets/demo_api_token")
n=$(grep -rlF "$token" "$top/demo" | grep -v '/secrets/demo_api_token$' |
    wc -l)
is "$n" 0 "the demo's fake token is in no file but its own"
runs=$(q_demo "SELECT count(*) FROM workflows")

# Again: the database (and what was decided in it) is kept.
q_demo "UPDATE workflows SET name = 'kept-marker' WHERE id = 1"
demo
is "$RC" 0 "quickstart demo again exits 0"
like "$OUT" "quickstart: keeping the demo database $db (./quickstart demo --rebuild makes it anew)" \
    "it says it keeps the database, and how to make it anew"
unlike "$OUT" "making the demo database" "it does not make it again"
like "$OUT" "To open the console on the demo" "it says how to open the console"
is "$(q_demo "SELECT count(*) || ' ' || (SELECT name FROM workflows WHERE id = 1)
    FROM workflows")" "$runs kept-marker" "the database is the same one"

# --rebuild makes it anew.
demo --rebuild
is "$RC" 0 "quickstart demo --rebuild exits 0"
like "$OUT" "quickstart: making the demo database $db" "it makes the database anew"
is "$(q_demo "SELECT count(*) FROM workflows WHERE name = 'kept-marker'")" 0 \
    "the old database is gone"
is "$(q_demo "SELECT count(*) FROM workflows")" "$runs" "with the demo's runs again"
env QUICKSTART_BUILD="$bdir" sh "$top/quickstart" demo --bogus \
    >"$T_DIR/qs.out" 2>"$T_DIR/qs.err" </dev/null
is "$?" 2 "an unknown option is a usage error"
like "$(cat "$T_DIR/qs.err")" "usage: ./quickstart demo [--rebuild]" "with the usage"

# On a terminal it prints the same, then opens the console (q quits it).
printf 'q' >"$T_DIR/keys"
env QUICKSTART_BUILD="$bdir" TERM=xterm-256color LINES=24 COLUMNS=80 \
    script -qec "sh '$top/quickstart' demo" /dev/null \
    <"$T_DIR/keys" >"$T_DIR/tty.out" 2>&1
is "$?" 0 "on a terminal quickstart demo ends when the console quits"
tr -d '\r' <"$T_DIR/tty.out" >"$T_DIR/tty.txt"
like "$(cat "$T_DIR/tty.txt")" "To open the console on the demo (again, after q):" \
    "on a terminal too it says how to open the console again"
like "$(cat "$T_DIR/tty.txt")" "quickstart: opening the console" \
    "then opens the console"
sed -n '/quickstart: opening the console/,$p' "$T_DIR/tty.txt" >"$T_DIR/console.txt"
like "$(cat "$T_DIR/console.txt")" "rolling-restart" \
    "whose screen lists the demo's runs"

done_testing
