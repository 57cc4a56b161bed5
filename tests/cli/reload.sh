#!/bin/sh
# tests/cli/reload.sh: the engine's own catalog decides what runs.  A run
# naming a tool the engine's catalog lacks is refused when it is submitted
# (exit 2, naming the step, the tool and the engine's catalog, nothing
# recorded), whatever catalog the client read; SIGHUP makes "sluice engine"
# read its catalog and the site config again, audited; a file with errors
# is not taken, the engine says why with the place, and keeps what it had.

. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

cat >"$T_DIR/engine-tools.json" <<'EOF2'
{"hello": {"run": ["true"]}}
EOF2
cat >"$T_DIR/client-tools.json" <<EOF2
{"hello": {"run": ["true"]},
 "extra": {"run": ["touch", "$T_DIR/extra-ran"]}}
EOF2
cat >"$T_DIR/extra.json" <<'EOF2'
{"start": {"tool": "hello", "next": "more"}, "more": {"tool": "extra"}}
EOF2
cat >"$T_DIR/fleet.json" <<'EOF2'
{"start": {"foreach": ["a", "b"], "do": {"tool": "extra"}}}
EOF2

export SLUICE_TOOLS="$T_DIR/engine-tools.json"
engine_start

# reloads OUTCOME: how many reload rows say applied (true) or not (false).
reloads() {
	q "SELECT count(*) FROM audit WHERE action = 'reload'
	    AND json_extract(detail_json, '$.applied') = $1"
}
reloads_are() {
	[ "$(reloads "$1")" = "$2" ]
}

# --- refused at submit ----------------------------------------------------------

before=$(db_digest)
run_sluice --tools "$T_DIR/client-tools.json" run "$T_DIR/extra.json"
expect_rc 2 "a tool the engine lacks: exit 2"
is "$ERR" "sluice: start: step more: tool \"extra\" is not in the engine's catalog $T_DIR/engine-tools.json (add it there and reload the engine)" \
    "it names the step, the tool and the engine's catalog"
is "$(db_digest)" "$before" "nothing is recorded"
run_sluice --tools "$T_DIR/client-tools.json" run "$T_DIR/fleet.json"
expect_rc 2 "a for-each's do with such a tool: exit 2"
like "$ERR" "step start: tool \"extra\" is not in the engine's catalog" \
    "it names the for-each step"
run_sluice --tools "$T_DIR/client-tools.json" template save ex \
    "$T_DIR/extra.json"
expect_rc 2 "a template with the tool: the engine refuses to save it too"
like "$ERR" 'unknown tool "extra"' "naming the tool"
is "$(db_digest)" "$before" "nothing is recorded"
test ! -e "$T_DIR/extra-ran"
ok $? "nothing ran"

# --- SIGHUP: the new catalog ------------------------------------------------------

cp "$T_DIR/client-tools.json" "$T_DIR/engine-tools.json"
kill -HUP "$EPID"
wait_for reloads_are true 1
ok $? "SIGHUP: the reload is audited"
alive "$EPID"
ok $? "the engine goes on"
like "$(cat "$T_DIR/engine.err")" \
    "sluice: engine: reloaded the tools catalog $T_DIR/engine-tools.json" \
    "and says so on its log"
run_sluice --tools "$T_DIR/client-tools.json" run --wait "$T_DIR/extra.json"
expect_rc 0 "the tool is taken now"
test -e "$T_DIR/extra-ran"
ok $? "and runs"
q_is "SELECT comment FROM audit WHERE action = 'reload'" \
    "reloaded the tools catalog $T_DIR/engine-tools.json and the config (none)" \
    "the audit row names the files"

# --- a file with errors keeps what was in force ---------------------------------

printf '{"hello": {"run": 5}}\n' >"$T_DIR/engine-tools.json"
kill -HUP "$EPID"
wait_for reloads_are false 1
ok $? "a catalog with errors: the refused reload is audited"
like "$(cat "$T_DIR/engine.err")" \
    "sluice: $T_DIR/engine-tools.json:1:19: \$.hello.run: expected an array of strings" \
    "the log says what is wrong, and where"
like "$(cat "$T_DIR/engine.err")" "sluice: engine: reload refused: the tools catalog has errors (above); the catalog and config in force are kept" \
    "and that the old catalog stays"
rm -f "$T_DIR/extra-ran"
run_sluice --tools "$T_DIR/client-tools.json" run --wait "$T_DIR/extra.json"
expect_rc 0 "the catalog in force still runs extra"
test -e "$T_DIR/extra-ran"
ok $? "and it ran"

# --- the site config is read again too ----------------------------------------

cp "$T_DIR/client-tools.json" "$T_DIR/engine-tools.json"
printf '{"allow_self": "maybe"}\n' >"$SLUICE_SITE_CONFIG"
kill -HUP "$EPID"
wait_for reloads_are false 2
ok $? "a config with errors: the reload is refused"
like "$(cat "$T_DIR/engine.err")" "$SLUICE_SITE_CONFIG: \$.allow_self: expected true or false" \
    "the log names the config and the key"
printf '{"allow_self": false}\n' >"$SLUICE_SITE_CONFIG"
kill -HUP "$EPID"
wait_for reloads_are true 2
ok $? "a good config is taken"
q_is "SELECT json_extract(detail_json, '$.config') FROM audit
    WHERE action = 'reload' ORDER BY id DESC LIMIT 1" "$SLUICE_SITE_CONFIG" \
    "the audit row names it"
cat >"$T_DIR/self.json" <<'EOF2'
{"start": {"gate": {"message": "mine?"}}}
EOF2
run_sluice run "$T_DIR/self.json"
gid=$OUT
wait_for wf_is "$gid" waiting
run_sluice approve "$(step_id "$gid" start)" -m "mine"
expect_rc 4 "its allow_self false now holds: my own gate is refused"
engine_stop
is "$ERC" 0 "SIGTERM still stops the engine"

done_testing
