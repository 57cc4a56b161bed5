#!/bin/sh
# json.sh: every --json document is indented with two spaces as jq prints
# it, its times are RFC 3339 in UTC with milliseconds (null when unset),
# and a listing that cannot be written (a full disk) exits non-zero with
# one line, for every listing.
. "$TOP_SRCDIR/tests/lib.sh"
. "$TOP_SRCDIR/tests/engine-lib.sh"

cat >"$T_DIR/gate.json" <<'JSON'
{"start": {"tool": "echo", "args": {"text": "hi"}, "next": "g"},
 "g": {"gate": {"message": "ok?"}}}
JSON
run_sluice template save hello "$TESTS_DATA/run/tmpl.json"
run_sluice template save hello "$TESTS_DATA/run/tmpl.json"
run_sluice run hello -i who=x --wait
id=$(sqlite3 "$SLUICE_DB" 'SELECT max(id) FROM workflows')
engine_start
run_sluice run "$T_DIR/gate.json"
gid=$OUT
wait_for step_is "$gid" g waiting
engine_stop
run_sluice schedule add nightly --cron @daily --template hello -i who=y

# Each listing, as words for run_sluice.
listings='list
show 1
gates
audit
audit --verify
template list
template show hello
template history hello
schedule list
schedule show nightly
check TESTS_DATA/run/tmpl.json
status
prune --older-than 1ms --dry-run'

rfc='[2-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'
while read -r words; do
	# shellcheck disable=SC2086
	set -- $(printf '%s' "$words" | sed "s|TESTS_DATA|$TESTS_DATA|")
	run_sluice "$@" --json
	# status exits 1 when it finds a problem (a gate waits, no engine).
	[ "$RC" -eq 0 ] || { [ "$1" = status ] && [ "$RC" -eq 1 ]; }
	ok $? "$words --json"
	printf '%s\n' "$OUT" >"$T_DIR/doc.json"
	# jq's layout: no tabs, indent a multiple of 2, "key": value.
	bad=$(grep -c "$(printf '\t')" "$T_DIR/doc.json")
	is "$bad" 0 "$words --json: no tabs"
	bad=$(awk '{ match($0, /^ */); if (RLENGTH % 2) n++ } END { print n + 0 }' \
	    "$T_DIR/doc.json")
	is "$bad" 0 "$words --json: two spaces a level"
	bad=$(grep -c '^ *"[^"]*":[^ ]' "$T_DIR/doc.json")
	is "$bad" 0 "$words --json: a space after each colon"
	is "$(sqlite3 :memory: "SELECT json_valid(CAST(readfile('$T_DIR/doc.json') AS TEXT))")" \
	    1 "$words --json: valid JSON"
	# Every member named like a time is an RFC 3339 string or null.
	bad=$(json_query "$OUT" "SELECT group_concat(fullkey || '=' || atom)
	    FROM d, json_tree(d.j) WHERE (key GLOB '*_at' OR key = 'at' OR
	    key = 'waiting_since') AND type <> 'null' AND NOT (type = 'text'
	    AND atom GLOB '$rfc') AND fullkey NOT GLOB '*.detail.*'")
	is "$bad" "" "$words --json: times are RFC 3339 UTC with ms"
	# The full disk: one line, non-zero, whatever the listing.
	"$SLUICE" "$@" --json >/dev/full 2>"$T_DIR/err"
	rc=$?
	ok $((rc == 0)) "$words --json >/dev/full exits non-zero"
	is "$(cat "$T_DIR/err")" "sluice: write error: No space left on device" \
	    "$words --json >/dev/full: one line says why"
	"$SLUICE" "$@" >/dev/full 2>"$T_DIR/err"
	rc=$?
	ok $((rc == 0)) "$words >/dev/full exits non-zero"
	is "$(cat "$T_DIR/err")" "sluice: write error: No space left on device" \
	    "$words >/dev/full: one line says why"
done <<EOF
$listings
EOF

run_sluice show "$id" --json
created=$(json_query "$OUT" "SELECT json_extract(j, '\$.created_at') FROM d")
is "$(sqlite3 :memory: "SELECT $(ms_of "'$created'")")" \
    "$(sqlite3 "$SLUICE_DB" "SELECT created_at FROM workflows WHERE id = $id")" \
    "show --json: created_at is the stored time, to the millisecond, in UTC"
TZ=America/New_York run_sluice show "$id" --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.created_at') FROM d")" \
    "$created" "the time zone does not change JSON times"
is "$(json_query "$OUT" "SELECT json_type(j, '\$.cancelled_at') FROM d")" \
    null "an unset time is null"
run_sluice schedule run nightly
sid=$OUT
run_sluice schedule list --json
is "$(json_query "$OUT" "SELECT json_type(j, '\$[0].last_run_id') || ' ' ||
    json_extract(j, '\$[0].last_run_id') FROM d")" "integer $sid" \
    "an id beside the times stays a number"
run_sluice prune --older-than 1ms --json
expect_rc 0 "prune --json"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.before') GLOB '$rfc' FROM d")" 1 \
    "prune --json: before is RFC 3339"
run_sluice list --status failed --json
is "$OUT" "[]" "an empty array is [] on one line"

done_testing
