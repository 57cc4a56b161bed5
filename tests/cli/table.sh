#!/bin/sh
# table.sh: human tables (list, gates, audit, template list and history,
# schedule list) size their columns from their rows, in terminal columns,
# so long and wide names align; piped output is never cut; a terminal
# narrower than the table cuts the widest columns with "…"; an empty
# listing prints nothing when piped and says so on a terminal.
. "$TOP_SRCDIR/tests/lib.sh"

long=nightly-database-backup-for-the-eu-region
wide="配置-déploiement-日本"
cat >"$T_DIR/t.json" <<'JSON'
{"description": "a template whose description is rather long, as operators write them",
 "flow": {"start": {"tool": "noop"}}}
JSON
run_sluice template save "$long" "$T_DIR/t.json"
expect_rc 0 "save a template with a long name"
run_sluice template save x "$T_DIR/t.json"
run_sluice run "$long" --wait
run_sluice run x --name "$wide" --wait
run_sluice run x --wait
run_sluice schedule add "$long-schedule" --cron @daily --template "$long"
run_sluice schedule add s --cron @hourly --template x

# cols TEXT: for each line, the display column where each field after the
# first starts (fields are split at runs of two or more spaces).
cols() {
	printf '%s\n' "$1" | python3 -c '
import sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
for line in sys.stdin.read().splitlines():
    out, i = [], 0
    while True:
        j = line.find("  ", i)
        if j < 0:
            break
        k = j
        while k < len(line) and line[k] == " ":
            k += 1
        out.append(str(w(line[:k])))
        i = k
    print(" ".join(out))
'
}

command -v python3 >/dev/null 2>&1 || skip_all "no python3 to measure display columns"
for c in "list" "template list" "schedule list" "audit" "template history $long"; do
	# shellcheck disable=SC2086
	run_sluice $c
	expect_rc 0 "$c"
	starts=$(cols "$OUT" | awk '{ print $1, $2 }' | sort -u)
	is "$(printf '%s\n' "$starts" | wc -l | tr -d ' ')" 1 \
	    "$c: the second and third columns start at the same place on every line"
done
run_sluice list
like "$OUT" "$long" "piped list: a long name is whole"
like "$OUT" "$wide" "piped list: a wide name is whole"
unlike "$OUT" "…" "piped output is never cut"
COLUMNS=40 run_sluice list
unlike "$OUT" "…" "not even with a narrow COLUMNS"

command -v script >/dev/null 2>&1 || skip_all "no script(1) for a terminal"
# on_tty COLS ARGS...: sluice on a pseudo-terminal COLS wide.
on_tty() {
	_w=$1
	shift
	script -qec "stty cols $_w rows 50; \"$SLUICE\" $*" /dev/null </dev/null |
	    tr -d '\r'
}
out=$(on_tty 60 list)
like "$out" "…" "a 60-column terminal cuts the table with …"
longest=$(printf '%s\n' "$out" | python3 -c '
import sys, unicodedata
print(max(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l)
    for l in sys.stdin.read().splitlines()))')
ok $((longest > 60)) "every line fits in 60 columns ($longest)"
starts=$(cols "$out" | awk '{ print $1, $2 }' | sort -u)
is "$(printf '%s\n' "$starts" | wc -l | tr -d ' ')" 1 "and the cut table still aligns"
like "$out" "ID  NAME" "the header is there"
out=$(on_tty 200 list)
unlike "$out" "…" "a terminal wide enough cuts nothing"
like "$out" "$long" "and shows the long name whole"

# --- empty listings --------------------------------------------------------
run_sluice gates
is "$OUT" "" "no gates, piped: nothing"
is "$(on_tty 80 gates)" "no gates waiting" "no gates on a terminal: says so"
run_sluice list --status failed
is "$OUT" "" "no failed runs, piped: nothing"
is "$(on_tty 80 list --status failed)" "no workflows" \
    "no workflows on a terminal: says so"
run_sluice init "$T_DIR/empty.db"
is "$(on_tty 80 --db "$T_DIR/empty.db" template list)" "no templates" \
    "no templates on a terminal: says so"
is "$(on_tty 80 --db "$T_DIR/empty.db" schedule list)" "no schedules" \
    "no schedules on a terminal: says so"

done_testing
