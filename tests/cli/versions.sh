#!/bin/sh
# tests/cli/versions.sh: "template history" and "template diff": versions
# with who saved them and how their runs went, unified diffs that patch(1)
# applies, one-line documents compared pretty-printed, removed templates
# still readable, and bad versions refused without writing anything.

. "$TOP_SRCDIR/tests/lib.sh"

me=$(id -un)
cat >"$T_DIR/v1.json" <<'EOF'
{
  "description": "restart the web tier",
  "flow": {
    "start": {"tool": "echo", "args": {"batch": 1}, "next": "check"},
    "check": {"tool": "noop", "done": true}
  }
}
EOF
sed 's/"batch": 1/"batch": 2/' "$T_DIR/v1.json" >"$T_DIR/v2.json"
sed 's/"noop", "done"/"echo", "done"/' "$T_DIR/v2.json" >"$T_DIR/v3.json"

run_sluice template save web "$T_DIR/v1.json"
run_sluice run web --wait
run_sluice run web --wait
run_sluice template save web "$T_DIR/v2.json"
run_sluice template save web "$T_DIR/v3.json"
run_sluice run web --wait

# --- history ------------------------------------------------------------

run_sluice template history web
expect_rc 0 "template history lists the versions"
is "$(printf '%s\n' "$OUT" | sed -n 1p | tr -s ' ')" \
    "VERSION SAVED BY RUNS COMPLETED DESCRIPTION" "history has its header"
is "$(printf '%s\n' "$OUT" | awk 'NR > 1 { print $1, $4, $5, $6 }')" \
    "1 $me 2 2
2 $me 0 0
3 $me 1 1" "each version with who saved it, its runs and completions"
like "$(printf '%s\n' "$OUT" | sed -n 2p)" "restart the web tier" \
    "the description is shown"

run_sluice template history web --json
expect_rc 0 "template history --json"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.name') || ' ' ||
    json_array_length(j, '$.versions') || ' ' ||
    json_extract(j, '$.versions[0].runs') || ' ' ||
    json_extract(j, '$.versions[2].completed') || ' ' ||
    json_extract(j, '$.versions[1].saved_by') || ' ' ||
    json_type(j, '$.removed_at') FROM d")" "web 3 2 1 $me null" \
    "--json has the versions, runs, who and no removal"

run_sluice template history nope
expect_rc 3 "history of an unknown template exits 3"
like "$ERR" 'no template "nope"' "and names it"
run_sluice template history
expect_rc 2 "history without a name is a usage error"

# --- diff ---------------------------------------------------------------

run_sluice template diff web
expect_rc 0 "template diff with no versions"
like "$OUT" "--- web v2 (saved " "the latest is compared with the one before"
like "$OUT" "+++ web v3 (saved " "... and names both with when and by whom"
like "$OUT" '-    "check": {"tool": "noop", "done": true}' "the old line"
like "$OUT" '+    "check": {"tool": "echo", "done": true}' "the new line"
is "$(printf '%s\n' "$OUT" | grep -c '^[-+] ')" "2" "one line changed"

run_sluice template diff web 1
expect_rc 0 "template diff V1 compares with the latest"
like "$OUT" "--- web v1" "from version 1"
like "$OUT" "+++ web v3" "to the latest"
# The diff is a real unified diff: patch(1) turns v1 into v3.
if command -v patch >/dev/null 2>&1; then
	cp "$T_DIR/v1.json" "$T_DIR/patched.json"
	printf '%s\n' "$OUT" | sed '1,2c\
--- a\
+++ b' >"$T_DIR/d.patch"
	patch -s "$T_DIR/patched.json" "$T_DIR/d.patch" >/dev/null 2>&1
	cmp -s "$T_DIR/patched.json" "$T_DIR/v3.json"
	ok $? "patch(1) applies the diff of v1 to v3"
else
	ok 0 "# SKIP patch(1) is not installed"
fi

run_sluice template diff web v3 2
expect_rc 0 "template diff V1 V2, with a v prefix"
like "$OUT" "--- web v3" "in the order given"
like "$OUT" '+    "check": {"tool": "noop", "done": true}' \
    "going back restores the old line"
like "$OUT" ' {' "unchanged lines are shown as context"
run_sluice template diff web 2 2
expect_rc 0 "a version against itself"
is "$OUT" 'versions 2 and 2 of "web" are the same' "says they are the same"

# One-line documents (as scripts save them) are compared pretty-printed.
printf '{"start":{"tool":"echo","args":{"n":1},"done":true}}' \
    >"$T_DIR/o1.json"
printf '{"start":{"tool":"echo","args":{"n":2},"done":true}}' \
    >"$T_DIR/o2.json"
run_sluice template save oneline "$T_DIR/o1.json"
run_sluice template save oneline "$T_DIR/o2.json"
run_sluice template diff oneline --pretty
is "$(printf '%s\n' "$OUT" | grep '^[-+][^-+]' | tr -d ' \t')" '-"n":1
+"n":2' "--pretty: one-line documents differ by the changed value only"
run_sluice template diff oneline 1 --pretty
is "$(printf '%s\n' "$OUT" | grep -c '^@@')" "1" "in one hunk"
run_sluice template diff oneline
is "$(printf '%s\n' "$OUT" | grep -c '^[-+][^-+]')" 2 \
    "without --pretty the saved lines are compared: one out, one in"
like "$OUT" '+{"start":{"tool":"echo","args":{"n":2},"done":true}}' \
    "as saved"

run_sluice template save single "$T_DIR/o1.json"
run_sluice template diff single
expect_rc 0 "a template with one version"
like "$OUT" "only version 1" "says there is nothing to compare"

before=$(db_digest)
for bad in 0 -1 x v 1.5 99999999999999999999; do
	run_sluice template diff web "$bad"
	expect_rc 2 "version \"$bad\" is refused"
done
run_sluice template diff web 9
expect_rc 3 "a version that does not exist exits 3"
like "$ERR" 'no template "web" version 9' "and names it"
run_sluice template diff web 1 2 3
expect_rc 2 "too many versions is a usage error"
is "$(db_digest)" "$before" "refused diffs write nothing"

# --- removed templates keep their history ---------------------------------

run_sluice template rm web
run_sluice template show web
expect_rc 3 "a removed template is gone from show"
"$SLUICE" template show web --version 1 >"$T_DIR/removed.out" 2>&1
is "$?" 0 "but show --version shows a removed template's version"
cmp -s "$T_DIR/removed.out" "$T_DIR/v1.json"
ok $? "byte for byte as saved"
run_sluice template show web --version 3 --json
expect_rc 0 "show --version --json of a removed template"
is "$(json_query "$OUT" "SELECT json_extract(j, '$.version') || ' ' ||
    json_type(j, '$.removed_at') FROM d")" "3 text" "with its version and removed_at"
run_sluice template show web --version 9
expect_rc 3 "a version a removed template never had is not found"
run_sluice template history web
expect_rc 0 "but its history is still read"
like "$OUT" "removed " "and says it was removed"
run_sluice template history web --json
isnull=$(json_query "$OUT" "SELECT json_type(j, '$.removed_at') FROM d")
[ "$isnull" != "null" ]
ok $? "--json gives when it was removed"
run_sluice template diff web 1 3
expect_rc 0 "its versions can still be compared"
like "$OUT" '+    "check": {"tool": "echo", "done": true}' "with their text"

for sub in history diff; do
	run_sluice template $sub --help
	expect_rc 0 "template $sub --help"
	like "$OUT" "template $sub" "--help names template $sub"
done

# show --version N prints the version byte for byte as saved: no newline
# is added to a document saved without one (only a terminal gets one).
printf '{"flow": {"start": {"tool": "noop"}}}' >"$T_DIR/nonl.json"
run_sluice template save nonl "$T_DIR/nonl.json"
expect_rc 0 "a document without a final newline saves"
"$SLUICE" template show nonl --version 1 >"$T_DIR/nonl.out"
cmp -s "$T_DIR/nonl.json" "$T_DIR/nonl.out"
ok $? "show --version 1 prints it byte for byte, no newline added"
printf '{"flow": {"start": {"tool": "noop"}}}\n' >"$T_DIR/nl.json"
run_sluice template save nonl "$T_DIR/nl.json"
"$SLUICE" template show nonl --version 2 >"$T_DIR/nl.out"
cmp -s "$T_DIR/nl.json" "$T_DIR/nl.out"
ok $? "a document with its newline keeps exactly one"

# patch(1) applies "template diff V1 V2" to what "show --version V1"
# prints, for documents of every layout: one line or several, with or
# without a final newline, keys added, removed and changed.
if command -v patch >/dev/null 2>&1; then
	bad=0
	i=0
	while [ $i -lt 60 ]; do
		awk -v seed=$i -v out="$T_DIR/r" '
		function doc(f, n,   s, k, nl, sep) {
			nl = rand() < 0.5
			sep = nl ? ",\n  " : ", "
			s = "{" (nl ? "\n  " : "") "\"start\": {\"tool\": " \
			    "\"noop\"" sep "\"args\": {\"a\": 0"
			for (k = 0; k < n; k++)
				if (rand() < 0.7)
					s = s sep "\"k" k "\": " int(rand() * 3)
			s = s "}}" (nl ? "\n" : "") "}"
			if (rand() < 0.5)
				s = s "\n"
			printf "%s", s > f
			close(f)
		}
		BEGIN { srand(seed); doc(out "1.json", 8); doc(out "2.json", 8) }'
		"$SLUICE" template save "rnd$i" "$T_DIR/r1.json" >/dev/null 2>&1 &&
		"$SLUICE" template save "rnd$i" "$T_DIR/r2.json" >/dev/null 2>&1 &&
		"$SLUICE" template show "rnd$i" --version 1 >"$T_DIR/rs.json" &&
		"$SLUICE" template diff "rnd$i" 1 2 >"$T_DIR/rd.patch" &&
		if grep -q '^@@' "$T_DIR/rd.patch"; then
			patch -s "$T_DIR/rs.json" "$T_DIR/rd.patch" >/dev/null 2>&1
		fi &&
		cmp -s "$T_DIR/rs.json" "$T_DIR/r2.json" || bad=$((bad + 1))
		i=$((i + 1))
	done
	is "$bad" 0 "patch turns show --version 1 into version 2 for 60 random pairs"
else
	ok 0 "# SKIP patch(1) is not installed (./quickstart deps installs it)"
fi
done_testing
