#!/bin/sh
# tests/cli/template.sh: "sluice template": save/show round trips, versions,
# listings, names and documents refused, soft delete, run with inputs, and
# "template edit" driven by scripted editors (changes, cancels, errors that
# reopen the editor, failing editors, $VISUAL over $EDITOR, editor strings
# that need a shell, and a concurrent save detected by version).

. "$TOP_SRCDIR/tests/lib.sh"

me=$(id -un)
mkdir -p "$T_DIR/tmp"
export TMPDIR="$T_DIR/tmp"

cat >"$T_DIR/hello.json" <<'EOF'
{
  "description": "Say hello",
  "inputs": {
    "who": {"description": "whom to greet", "required": true},
    "greeting": {"default": "hello"}
  },
  "flow": {
    "start": {
      "tool": "echo",
      "args": {"msg": "{{input.greeting}} {{input.who}}"},
      "done": true
    }
  }
}
EOF

# A plain flow, formatted oddly, to show the text is stored as given.
printf '{"start":   {"tool": "noop", "next": "b"},\n "b": {"tool": "noop"}}\n' \
    >"$T_DIR/plain.json"

# One error: a reference to a step that does not exist.
cat >"$T_DIR/badref.json" <<'EOF'
{
  "start": {"tool": "noop", "next": "nowhere"}
}
EOF

printf '{\n  "start": {"tool": "noop",,}\n}\n' >"$T_DIR/badjson.json"

# A warning only: an unreachable step.
cat >"$T_DIR/warn.json" <<'EOF'
{
  "start": {"tool": "noop"},
  "island": {"tool": "noop"}
}
EOF

# --- usage ---------------------------------------------------------------

run_sluice template
expect_rc 2 "template with no subcommand is a usage error"
run_sluice template frobnicate
expect_rc 2 "an unknown subcommand is a usage error"
like "$ERR" "frobnicate" "the unknown subcommand is named"
for sub in list show save edit rm run; do
	run_sluice template $sub --help
	expect_rc 0 "template $sub --help"
	like "$OUT" "usage: sluice template $sub" "template $sub --help usage"
done
run_sluice template show
expect_rc 2 "template show without a name"
run_sluice template save hello
expect_rc 2 "template save without a file"

# --- save, show, versions ------------------------------------------------

run_sluice template save hello "$T_DIR/hello.json"
expect_rc 0 "save a template"
is "$OUT" "saved template hello version 1" "save says the version"

"$SLUICE" template show hello >"$T_DIR/shown" 2>/dev/null
ok $? "show exits 0"
cmp -s "$T_DIR/hello.json" "$T_DIR/shown"
ok $? "show prints the document byte for byte"

run_sluice template save hello "$T_DIR/shown"
expect_rc 0 "save what show printed"
is "$OUT" "saved template hello version 2" "the version increases"
"$SLUICE" template show hello >"$T_DIR/shown2" 2>/dev/null
cmp -s "$T_DIR/hello.json" "$T_DIR/shown2"
ok $? "show > f; save f round-trips exactly"

run_sluice template save plain "$T_DIR/plain.json"
expect_rc 0 "save a plain flow as a template"
"$SLUICE" template show plain >"$T_DIR/plain.out" 2>/dev/null
cmp -s "$T_DIR/plain.json" "$T_DIR/plain.out"
ok $? "the text is stored as given, not reformatted"

"$SLUICE" template save stdin - <"$T_DIR/hello.json" >"$T_DIR/out" 2>&1
ok $? "save from stdin"
is "$(cat "$T_DIR/out")" "saved template stdin version 1" "stdin save output"

run_sluice template show hello --version 1
expect_rc 0 "show --version 1"
like "$OUT" '"Say hello"' "the old version is kept"
run_sluice template show hello --version 9
expect_rc 3 "show of a missing version"
like "$ERR" 'no template "hello" version 9' "the missing version is named"
run_sluice template show hello --version x
expect_rc 2 "show with a bad --version"
run_sluice template show nosuch
expect_rc 3 "show of a missing template"
is "$ERR" 'sluice: no template "nosuch"' "show names the missing template"

# --- bad documents and names change nothing -------------------------------

before=$(db_digest)
run_sluice template save broken "$T_DIR/badref.json"
expect_rc 2 "save of a document with an unknown step"
one_line "$ERR" "one line for one problem"
like "$ERR" "sluice: $T_DIR/badref.json:2:" "the reason names file and line"
like "$ERR" "nowhere" "the reason names the unknown step"
is "$(db_digest)" "$before" "a refused save writes nothing"

run_sluice template save broken "$T_DIR/badjson.json"
expect_rc 2 "save of unparsable JSON"
like "$ERR" "$T_DIR/badjson.json:2:" "bad JSON is reported with its line"
is "$(db_digest)" "$before" "unparsable JSON writes nothing"

run_sluice template save broken "$T_DIR/nosuchfile.json"
expect_rc 2 "save of a missing file"
like "$ERR" "nosuchfile.json" "the missing file is named"

long=$(printf '%0129d' 0)
for bad in ".hidden" "a/b" "sp ace" "x.json" "$long" "" "caf$(printf '\303\251')"; do
	run_sluice template save "$bad" "$T_DIR/hello.json"
	expect_rc 2 "template name \"$bad\" is refused"
	like "$ERR" "template name" "the reason for \"$bad\" is given"
done
run_sluice template save -x "$T_DIR/hello.json"
expect_rc 2 "a name starting with - is refused"
is "$(db_digest)" "$before" "refused names write nothing"

run_sluice template save warned "$T_DIR/warn.json"
expect_rc 0 "warnings alone do not block a save"
like "$ERR" "warning" "the warning is printed"
like "$OUT" "saved template warned version 1" "and the template is saved"

# --- list ----------------------------------------------------------------

run_sluice template list
expect_rc 0 "template list"
first=$(printf '%s\n' "$OUT" | head -n 1)
like "$first" "NAME" "the list has a header"
like "$first" "DESCRIPTION" "the header names the description column"
row=$(printf '%s\n' "$OUT" | grep '^hello ')
like "$row" "Say hello" "hello's row has its description"
like "$row" " 2 " "hello's row has its version"
like "$row" "$me" "hello's row has who saved it"

run_sluice template list --json
expect_rc 0 "template list --json"
h() {
	json_query "$OUT" "SELECT json_extract(value, '$1') FROM d,
	    json_each(d.j) WHERE json_extract(value, '$.name') = '$2'"
}
is "$(h '$.version' hello)" 2 "list --json: hello is at version 2"
is "$(h '$.description' hello)" "Say hello" "list --json: its description"
is "$(h '$.inputs.who.required' hello)" 1 "list --json: its declared inputs"
is "$(h '$.inputs' plain)" "" "list --json: no inputs is null"
for k in created_by updated_by created_at updated_at; do
	is "$(json_query "$OUT" "SELECT json_type(value, '\$.$k') FROM d,
	    json_each(d.j) WHERE json_extract(value, '\$.name') = 'hello'")" \
	    text "list --json: has $k"
done
is "$(json_query "$OUT" "SELECT count(*) = json_array_length(d.j) FROM d,
    json_each(d.j) WHERE json_extract(value, '$.updated_at') GLOB
    '[2-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'")" 1 \
    "list --json: every updated_at is RFC 3339 in UTC with milliseconds"
is "$(json_query "$OUT" "SELECT $(ms_of "json_extract(value, '\$.updated_at')")
    FROM d, json_each(d.j) WHERE json_extract(value, '\$.name') = 'hello'")" \
    "$(sqlite3 "$SLUICE_DB" "SELECT updated_at FROM workflow_templates WHERE name = 'hello'")" \
    "list --json: updated_at is the stored time to the millisecond"
run_sluice template show hello --json
is "$(json_query "$OUT" "SELECT json_extract(j, '$.name') || ' ' ||
    json_extract(j, '$.version') || ' ' ||
    json_extract(j, '$.document.flow.start.tool') FROM d")" "hello 2 echo" \
    "show --json has the parsed document"
run_sluice template show hello --json
like "$OUT" '"document"' "show --json includes the document"

# --- run -----------------------------------------------------------------

run_sluice template run hello
expect_rc 2 "a run without a required input is refused"
like "$ERR" "who" "the missing input is named"
run_sluice template run hello -i greeting=hi
expect_rc 2 "a run with other inputs but not the required one is refused"
like "$ERR" '"who"' "the missing required input is named"
run_sluice template run hello -i who
expect_rc 2 "a malformed -i is refused"
printf '{"who": "file"}\n' >"$T_DIR/input.json"
run_sluice template run hello --input "$T_DIR/input.json"
expect_rc 0 "a run with --input FILE starts"
run_sluice template run hello -i who=world --name greet
expect_rc 0 "a run with its input starts"
case "$OUT" in
''|*[!0-9]*) ok 1 "template run prints the workflow id" ;;
*)	ok 0 "template run prints the workflow id" ;;
esac
run_sluice template run nosuch -i who=x
expect_rc 3 "running a missing template"

# --- rm ------------------------------------------------------------------

run_sluice template rm stdin
expect_rc 0 "template rm"
is "$OUT" "removed template stdin" "rm says what it removed"
run_sluice template show stdin
expect_rc 3 "a removed template is gone"
run_sluice template rm stdin
expect_rc 3 "removing it again"
run_sluice template list
unlike "$OUT" "stdin" "a removed template is not listed"

# --- edit ----------------------------------------------------------------

# ed_script NAME BODY: write an editor script; it gets the file as $1.
ed_script() {
	printf '#!/bin/sh\n%s\n' "$2" >"$T_DIR/$1"
	chmod +x "$T_DIR/$1"
}

ed_script ed-sed 'cp "$1" "$T_DIR/seen"; sed -i "s/Say hello/Say hi/" "$1"'
ed_script ed-empty ': >"$1"'
ed_script ed-touch 'cp "$1" "$T_DIR/seen"; stat -c %a "$1" >"$T_DIR/mode"; touch "$1"'
ed_script ed-fail 'exit 1'
ed_script ed-visual 'sed -i "s/Say hi/Say hey/" "$1"'
ed_script ed-new 'cp "$1" "$T_DIR/seen"; sed -i "s/What this template is for/Brand new/" "$1"'
export T_DIR

export EDITOR="$T_DIR/ed-sed"
run_sluice template edit hello
expect_rc 0 "edit with a changing editor"
is "$OUT" "saved template hello version 3" "edit saves the next version"
is "$(head -n 1 "$T_DIR/seen")" \
    "# Editing template hello (version 2) in DB $SLUICE_DB" \
    "the header says what is edited and where"
like "$(sed -n 3p "$T_DIR/seen")" "Save an empty file" \
    "the header says how to cancel"
run_sluice template show hello
like "$OUT" "Say hi" "the edit is saved"
unlike "$OUT" "# " "the header is not saved"
is "$(ls "$TMPDIR")" "" "the temporary file is removed after a save"

before=$(db_digest)
export EDITOR="$T_DIR/ed-touch"
run_sluice template edit hello
expect_rc 0 "an unchanged file cancels"
like "$ERR" "no changes" "and says so"
is "$(db_digest)" "$before" "an unchanged file saves nothing"
is "$(cat "$T_DIR/mode")" "600" "the temporary file is private"
tail -n +4 "$T_DIR/seen" >"$T_DIR/seen.doc"
"$SLUICE" template show hello >"$T_DIR/shown" 2>/dev/null
cmp -s "$T_DIR/seen.doc" "$T_DIR/shown"
ok $? "the editor sees the header then the document"

export EDITOR="$T_DIR/ed-empty"
run_sluice template edit hello
expect_rc 0 "an empty file cancels"
like "$ERR" "empty" "and says so"
is "$(db_digest)" "$before" "an empty file saves nothing"
is "$(ls "$TMPDIR")" "" "the temporary file is removed on cancel"

export EDITOR="$T_DIR/ed-fail"
run_sluice template edit hello
expect_rc 1 "a failing editor"
like "$ERR" "editor exited with status 1; nothing saved" "is reported"
is "$(db_digest)" "$before" "a failing editor saves nothing"
is "$(ls "$TMPDIR")" "" "and leaves no temporary file"

export VISUAL="$T_DIR/ed-visual"
run_sluice template edit hello
expect_rc 0 "VISUAL is used before EDITOR"
run_sluice template show hello
like "$OUT" "Say hey" "VISUAL's change is saved"
unset VISUAL

export EDITOR="$T_DIR/ed-touch"
run_sluice template edit fresh
expect_rc 0 "an untouched skeleton cancels"
like "$(head -n 1 "$T_DIR/seen")" "template fresh (new)" "a new template says so"
run_sluice template show fresh
expect_rc 3 "and creates nothing"

export EDITOR="$T_DIR/ed-new"
run_sluice template edit fresh
expect_rc 0 "edit a new template from the skeleton"
is "$OUT" "saved template fresh version 1" "the new template is version 1"
run_sluice template show fresh --json
like "$OUT" "Brand new" "the edited skeleton is saved"
like "$(cat "$T_DIR/seen")" '"tool": "echo"' "the skeleton has an echo step"
run_sluice template run fresh -i target=x
expect_rc 0 "the skeleton runs"

# Broken on the first round, fixed on the second.
cat >"$T_DIR/ed-twice" <<'EOF'
#!/bin/sh
n=$(cat "$T_DIR/count" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >"$T_DIR/count"
if [ $n -eq 1 ]; then
	cat "$T_DIR/badref.json" >"$1"
else
	cp "$1" "$T_DIR/round2"
	cat "$T_DIR/plain.json" >"$1"
fi
EOF
chmod +x "$T_DIR/ed-twice"
export EDITOR="$T_DIR/ed-twice"
run_sluice template edit twice
expect_rc 0 "edit that fixes its errors on the second round"
is "$(cat "$T_DIR/count")" "2" "the editor was opened twice"
is "$OUT" "saved template twice version 1" "then it is saved"
like "$(cat "$T_DIR/round2")" "# Errors:" "the second round lists errors"
like "$(cat "$T_DIR/round2")" "nowhere" "the error names the unknown step"
like "$(grep '^#   ' "$T_DIR/round2")" '$.start' "the error has its JSON path"
# Lines count from the top of the file: 5 header lines, then line 2.
like "$(grep '^#   ' "$T_DIR/round2")" 'twice:7:' "the error line is the file's"
sed '/^#/d' "$T_DIR/round2" >"$T_DIR/round2.doc"
cmp -s "$T_DIR/badref.json" "$T_DIR/round2.doc"
ok $? "the second round shows the user's text, not the old one"

# Broken every round (unchanged after errors): stop, keep the text.
ed_script ed-badonce 'grep -q Errors "$1" || cat "$T_DIR/badref.json" >"$1"'
export EDITOR="$T_DIR/ed-badonce"
before=$(db_digest)
run_sluice template edit hello
expect_rc 1 "giving up after errors"
like "$ERR" "still has errors" "says the template still has errors"
like "$ERR" "kept in $TMPDIR/sluice-hello-" "and where the edit is kept"
is "$(db_digest)" "$before" "nothing is saved"
kept=$(ls "$TMPDIR"/sluice-hello-*.json 2>/dev/null | head -n 1)
cmp -s "$T_DIR/badref.json" "$kept"
ok $? "the kept file holds the user's text without the header"
rm -f "$TMPDIR"/*

# Editor strings that need a shell, and a file name with metacharacters.
mkdir -p "$T_DIR/my editor"
ed_script "my editor/ed" 'sed -i "s/Say hey/Say yo/" "$1"'
export EDITOR="\"$T_DIR/my editor/ed\""
run_sluice template edit hello
expect_rc 0 "a quoted editor path with a space"
run_sluice template show hello
like "$OUT" "Say yo" "that editor's change is saved"

evil="$T_DIR/tmp \$(touch pwned); \`touch pwned2\` 'q"
mkdir -p "$evil"
export EDITOR='sh -c '\''sed -i "s/Say yo/Say ho/" "$1"'\'' x'
(cd "$T_DIR" && TMPDIR="$evil" && export TMPDIR &&
    "$SLUICE" template edit hello >/dev/null 2>&1 </dev/null)
ok $? "an editor string with shell metacharacters"
run_sluice template show hello
like "$OUT" "Say ho" "sh -c editor gets the file as an argument"
test ! -e "$T_DIR/pwned" && test ! -e "$T_DIR/pwned2"
ok $? "the file name is never run by the shell"
is "$(ls "$evil")" "" "the odd temporary file is removed"

# A concurrent save while the editor is open is detected.
cat >"$T_DIR/ed-race" <<'EOF'
#!/bin/sh
"$SLUICE" template save hello "$T_DIR/hello.json" >/dev/null 2>&1
sed -i "s/Say ho/Say mine/" "$1"
EOF
chmod +x "$T_DIR/ed-race"
export EDITOR="$T_DIR/ed-race"
run_sluice template show hello --json
v=$(printf '%s\n' "$OUT" | sed -n 's/.*"version":[^0-9]*\([0-9]*\).*/\1/p')
run_sluice template edit hello
expect_rc 1 "a concurrent save makes the edit fail"
like "$ERR" "template hello was changed meanwhile (now version $((v + 1)) by $me)" \
    "the conflict names the new version and who saved it"
like "$ERR" "your edit is kept in $TMPDIR/sluice-hello-" "the edit is kept"
run_sluice template show hello
like "$OUT" "Say hello" "the other save stands"
kept=$(ls "$TMPDIR"/sluice-hello-*.json 2>/dev/null | head -n 1)
run_sluice template save hello "$kept"
expect_rc 0 "the kept edit can be saved by hand"
run_sluice template show hello
like "$OUT" "Say mine" "the kept edit is the user's"

done_testing
