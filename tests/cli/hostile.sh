#!/bin/sh
# tests/cli/hostile.sh: hostile text never reaches the terminal, and the
# smaller refusals.  Control characters (C0, DEL, C1, bytes that are not
# UTF-8) in comments, names, descriptions, inputs, gate messages and step
# output are shown escaped by audit, show, list, gates, template list/show
# and log, while --json and log --raw stay exact; errors that echo input
# stay on one line.  NUL bytes in flow files, a config.json that is not an
# object, control characters in names, a database we may not read (exit
# 4), private -v logs and traces, and write errors on stdout.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

ESC=$(printf '\033')
BEL=$(printf '\007')
DEL=$(printf '\177')
CSI8=$(printf '\302\233')	# U+009B, the one-character CSI
NL='
'

# raw TEXT DESCRIPTION: TEXT holds no raw ESC, BEL, DEL or C1 CSI.
raw_free() {
	case "$1" in
	*"$ESC"*|*"$BEL"*|*"$DEL"*|*"$CSI8"*)
		ok 1 "$2"
		printf '#   got: %s\n' "$(printf '%s' "$1" | od -c | head -5)" ;;
	*)	ok 0 "$2" ;;
	esac
}

engine_start

# --- a comment that retitles and clears the reader's terminal -------------

cat >"$T_DIR/gate.json" <<'EOF'
{"start": {"gate": {"message": "ship \u001b[31m{{input.v}}\u007f?"}}}
EOF
run_sluice run "$T_DIR/gate.json" -i "v=$(printf 'x\033]52;c;cGF3bmVk\007y')"
expect_rc 0 "run with a hostile input"
id=$OUT
wait_for step_is "$id" start waiting
ok $? "the gate waits"
g=$(step_id "$id" start)
evil=$(printf 'no\033]0;PWNED\007\033[2J')
run_sluice reject "$g" -m "$evil"
expect_rc 0 "reject with a comment full of escapes"
wait_for wf_ended "$id"

run_sluice audit
expect_rc 0 "audit"
raw_free "$OUT" "audit shows no raw control characters"
like "$OUT" 'no\e]0;PWNED\x07\e[2J' "audit shows the comment escaped"
run_sluice audit --json
like "$OUT" '"comment": "no\u001b]0;PWNED\u0007\u001b[2J"' \
    "audit --json keeps the comment exact"
is "$(json_query "$OUT" "SELECT json_extract(j, '\$[0].comment') FROM d")" \
    "$evil" "and it decodes to the very bytes given"

run_sluice show "$id"
expect_rc 0 "show"
raw_free "$OUT" "show shows no raw control characters"
like "$OUT" '\u001b]52;c;cGF3bmVk\u0007y' "show's input line is escaped"
run_sluice show "$id" --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$.input.v') FROM d")" \
    "$(printf 'x\033]52;c;cGF3bmVk\007y')" "show --json keeps the input exact"

# --- gate messages, names, descriptions -------------------------------------

run_sluice run "$T_DIR/gate.json" -i "v=$CSI8"
id2=$OUT
wait_for step_is "$id2" start waiting
run_sluice gates
expect_rc 0 "gates"
raw_free "$OUT" "gates shows no raw control characters"
like "$OUT" 'ship \e[31m\u009b\x7f?' "the gate message is escaped (C0, C1, DEL)"
run_sluice gates --json
is "$(json_query "$OUT" "SELECT json_extract(j, '\$[0].message') FROM d")" \
    "ship ${ESC}[31m${CSI8}${DEL}?" "gates --json keeps it exact"

cp "$T_DIR/gate.json" "$T_DIR/red${ESC}[31mname.json"
run_sluice run "$T_DIR/red${ESC}[31mname.json"
expect_rc 0 "run a file whose name holds an escape"
run_sluice list
raw_free "$OUT" "list shows no raw control characters"
like "$OUT" 'red\e[31mname' "list shows the name escaped"
# The columns still line up: STATUS starts at the same place on each row.
bad=$(printf '%s\n' "$OUT" | awk 'NR == 1 { c = index($0, "STATUS") }
    NR > 1 && (substr($0, c - 2, 2) != "  " || substr($0, c, 1) == " ") {
    n++ } END { print n + 0 }')
is "$bad" 0 "list keeps its columns aligned around escaped names"

printf '{"description": "d\\u001b[2Jd", "flow": {"start": {"tool": "noop"}}}' \
    >"$T_DIR/t.json"
run_sluice template save tmpl "$T_DIR/t.json"
expect_rc 0 "save a template whose description holds an escape"
run_sluice template list
raw_free "$OUT" "template list shows no raw control characters"
like "$OUT" 'd\e[2Jd' "template list shows the description escaped"
# A raw ESC inside a JSON string (parsers let it through): shown as \u001b.
printf '{"description": "r%s[2Jr", "flow": {"start": {"tool": "noop"}}}' \
    "$ESC" >"$T_DIR/t2.json"
run_sluice template save tmpl2 "$T_DIR/t2.json"
if [ "$RC" -eq 0 ]; then
	run_sluice template show tmpl2
	raw_free "$OUT" "template show shows no raw control characters"
	like "$OUT" 'r\u001b[2Jr' "template show escapes it as JSON would"
	printf '%s\n' "$OUT" >"$T_DIR/t2-shown.json"
	run_sluice check "$T_DIR/t2-shown.json"
	expect_rc 0 "and what it shows is still the same valid document"
else
	ok 0 "raw control characters in JSON strings are refused: $ERR"
	ok 0 "(nothing to show)"
	ok 0 "(nothing to check)"
fi

# --- step output --------------------------------------------------------------

cat >"$T_DIR/out.json" <<'EOF'
{"start": {"shell": "printf 'a\\033[2Jb\\tc\\177d\\n\\302\\233e\\377z\\n'"}}
EOF
run_sluice run --wait "$T_DIR/out.json"
expect_rc 0 "a step that prints escapes"
s=$(step_id "$(new_id)" start)
"$SLUICE" log "$s" >"$T_DIR/log.txt" 2>&1
printf 'a\\e[2Jb\tc\\x7fd\n\\u009be\\xffz\n' >"$T_DIR/log.want"
cmp -s "$T_DIR/log.txt" "$T_DIR/log.want"
ok $? "log shows control characters escaped, newlines and tabs kept"
"$SLUICE" log --raw "$s" >"$T_DIR/log.raw" 2>&1
printf 'a\033[2Jb\tc\177d\n\302\233e\377z\n' >"$T_DIR/raw.want"
cmp -s "$T_DIR/log.raw" "$T_DIR/raw.want"
ok $? "log --raw passes the bytes through unchanged"
run_sluice log -t "$s"
raw_free "$OUT" "log -t escapes too"
like "$OUT" 'a\e[2Jb' "log -t shows the escape"

# --- errors that echo input ---------------------------------------------------

run_sluice show "$(printf '12\033[2J\nfake: line')"
expect_rc 2 "a bad id is refused"
raw_free "$ERR" "the error shows no raw control characters"
one_line "$ERR" "and stays on one line"
like "$ERR" '12\e[2J\nfake: line' "and shows the input escaped"
run_sluice template show "$(printf 'a\033b')"
raw_free "$ERR" "a bad template name is echoed escaped"
one_line "$ERR" "on one line"

engine_stop

# --- item 7: smaller refusals -----------------------------------------------

printf '{"start": {"run": ["echo", "keep\000dropped"]}}\n' >"$T_DIR/nul.json"
run_sluice check "$T_DIR/nul.json"
expect_rc 2 "a NUL byte in a flow file is an error"
like "$ERR" "nul.json:1:33: NUL byte" "with its place"
one_line "$ERR" "on one line"
before=$(db_digest)
run_sluice template save nul "$T_DIR/nul.json"
expect_rc 2 "a NUL byte in a template file is refused"
like "$ERR" "NUL byte" "saying why"
run_sluice run "$T_DIR/nul.json"
expect_rc 2 "and running such a file is refused"
is "$(db_digest)" "$before" "nothing written"

printf '{"start": {"name": "a%sb", "tool": "noop"}}\n' "$CSI8" >"$T_DIR/c1.json"
run_sluice check "$T_DIR/c1.json"
expect_rc 2 "a C1 control character in a step name is refused"
like "$ERR" '$.start.name: a name must not hold control characters' \
    "with its place"
printf '{"start": {"tool": "noop", "next": "a\\u0085b"}, "a\\u0085b": {"tool": "noop"}}\n' \
    >"$T_DIR/c1key.json"
run_sluice check "$T_DIR/c1key.json"
expect_rc 2 "a C1 control character in a step key is refused"
like "$ERR" "a step key must not hold control characters" "saying why"
run_sluice run "$T_DIR/gate.json" --name "a${CSI8}b"
expect_rc 2 "a C1 control character in --name is refused"
like "$ERR" "control characters are not allowed" "saying why"
run_sluice run "$T_DIR/gate.json" --name "a${DEL}b"
expect_rc 2 "so is DEL"
run_sluice schedule add "s${CSI8}" --cron "0 * * * *" --template tmpl
expect_rc 2 "a C1 control character in a schedule name is refused"
run_sluice template save "t${CSI8}" "$T_DIR/gate.json"
expect_rc 2 "a C1 control character in a template name is refused"
is "$(db_digest)" "$before" "none of them wrote anything"

# (On a database of its own: an engine that took the file would drain it.)
db_init "$T_DIR/cfg.db"
echo '[1, 2]' >"$XDG_CONFIG_HOME/sluice/config.json"
SLUICE_DB="$T_DIR/cfg.db" run_sluice engine --drain
expect_rc 2 "a config.json that is an array is refused"
like "$ERR" 'config.json: expected a JSON object' "saying where"
echo '"jobs"' >"$XDG_CONFIG_HOME/sluice/config.json"
SLUICE_DB="$T_DIR/cfg.db" run_sluice engine --drain
expect_rc 2 "so is a string"
rm -f "$XDG_CONFIG_HOME/sluice/config.json"

(
	umask 0
	cd "$T_DIR" && "$SLUICE" -v list >/dev/null 2>&1
)
log=$(ls "$T_DIR"/sluice-*.log 2>/dev/null | head -1)
is "$(stat -c %a "$log" 2>/dev/null)" 600 "the -v log is 0600 even with umask 0"
db_init "$T_DIR/trace.db"
(
	umask 0
	SLUICE_DB="$T_DIR/trace.db" SLUICE_TRACE="$T_DIR/trace" \
	    "$SLUICE" engine --drain >/dev/null 2>&1
)
is "$(stat -c %a "$T_DIR/trace" 2>/dev/null)" 600 \
    "the SLUICE_TRACE file is 0600 even with umask 0"

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
    id nobody >/dev/null 2>&1; then
	mkdir -p "$T_DIR/private"
	chmod 755 "$T_DIR" "$T_DIR/private"
	db_init "$T_DIR/private/db"
	chmod 600 "$T_DIR/private/db"
	nob="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	SLUICE_DB="$T_DIR/private/db" $nob "$SLUICE" list \
	    >"$T_DIR/out" 2>"$T_DIR/err"
	is "$?" 4 "a database we may not read: exit 4"
	like "$(cat "$T_DIR/err")" "Permission denied" "saying why"
	chmod 700 "$T_DIR/private"
	SLUICE_DB="$T_DIR/private/db" $nob "$SLUICE" list \
	    >"$T_DIR/out" 2>"$T_DIR/err"
	is "$?" 4 "a database in a directory we may not enter: exit 4"
	SLUICE_DB="$T_DIR/private/db" $nob "$SLUICE" run "$T_DIR/gate.json" \
	    >"$T_DIR/out" 2>"$T_DIR/err"
	is "$?" 4 "run on it: exit 4 too"
else
	skip_cases 4 "needs root, setpriv and nobody"
fi

# --- item 10: write errors on stdout -------------------------------------------

if [ -w /dev/full ]; then
	"$SLUICE" list --json >/dev/full 2>"$T_DIR/err"
	is "$?" 1 "list --json to a full disk fails"
	is "$(cat "$T_DIR/err")" "sluice: write error: No space left on device" \
	    "with one line saying so"
	n=$(q "SELECT count(*) FROM workflows")
	"$SLUICE" run "$T_DIR/gate.json" >/dev/full 2>"$T_DIR/err"
	is "$?" 1 "run to a full disk fails (its id was not printed)"
	like "$(cat "$T_DIR/err")" "write error" "saying so"
	"$SLUICE" --version >/dev/full 2>/dev/null
	is "$?" 1 "so does --version"
	"$SLUICE" show 999999 >/dev/full 2>/dev/null
	is "$?" 3 "a command that failed keeps its own exit status"
else
	skip_cases 6 "no writable /dev/full"
fi

done_testing
