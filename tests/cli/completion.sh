#!/bin/sh
# completion.sh: "sluice completion bash|zsh|fish" prints the scripts that
# share/completion installs; they ask "sluice __complete" what may come
# next: commands, subcommands, options and their values, workflow, gate
# and step ids, template and schedule names, a template's input keys
# after -i.  Completing never creates a database.  bash is driven for
# real; so are zsh (in a pseudo-terminal, zsh/zpty) and fish, when
# installed, and they show each command's summary and option's help.
. "$TOP_SRCDIR/tests/lib.sh"

for sh in bash zsh fish; do
	run_sluice completion "$sh"
	expect_rc 0 "sluice completion $sh"
	case $sh in
	bash) f=sluice ;; zsh) f=_sluice ;; fish) f=sluice.fish ;;
	esac
	is "$OUT" "$(cat "$TOP_SRCDIR/share/completion/$f")" \
	    "share/completion/$f is what sluice completion $sh prints"
done
run_sluice completion tcsh
expect_rc 2 "an unknown shell"
like "$ERR" 'sluice: completion: no shell "tcsh"' "is named"

command -v bash >/dev/null 2>&1 || skip_all "no bash"
mkdir -p "$T_DIR/bin"
ln -s "$SLUICE" "$T_DIR/bin/sluice"
cat >"$T_DIR/in.json" <<'JSON'
{"inputs": {"who": {"required": true}, "greeting": {"default": "hi"}},
 "flow": {"start": {"tool": "noop", "next": "g"},
          "g": {"gate": {"message": "ok?"}}}}
JSON
run_sluice template save nightly-backup "$T_DIR/in.json"

# complete WORDS...: what bash offers for the last word.
complete_words() {
	PATH="$T_DIR/bin:$PATH" bash -c '
		eval "$(sluice completion bash)"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_sluice
		printf "%s\n" "${COMPREPLY[@]}" | sed "/^\$/d" | sort |
		    tr "\n" " "
	' sh "$TOP_SRCDIR" "$@"
}

is "$(complete_words sluice te)" "template " "a command from its prefix"
like "$(complete_words sluice '')" "approve audit backup cancel check complete completion" \
    "every command"
unlike "$(complete_words sluice '')" "__complete" "but not the hidden helper"
is "$(complete_words sluice template '')" \
    "diff edit history list rm run save show " "template subcommands"
is "$(complete_words sluice template show ni)" "nightly-backup " \
    "template names"
run_sluice --db "$T_DIR/other.db" init
run_sluice --db "$T_DIR/other.db" template save other "$T_DIR/in.json"
is "$(complete_words sluice --db "$T_DIR/other.db" template edit '')" \
    "other " "template names honour --db"
is "$(complete_words sluice list --status c)" "cancelled completed " \
    "status values"
like "$(complete_words sluice run --)" "--at --help --input --name --wait" \
    "run options, from its table"
like "$(complete_words sluice run -)" "-i" "and -i, which has no long form"
like "$(complete_words sluice template show --)" "--version" \
    "template subcommand options"
is "$(complete_words sluice --v)" "--version " "global options"
is "$(complete_words sluice schedule '')" \
    "add list pause resume rm run show " "schedule subcommands"
like "$(complete_words sluice schedule add x --)" "--cron --help --input --overlap --template" \
    "schedule add options"
is "$(complete_words sluice schedule add x --overlap '')" \
    "allow cancel-previous skip " "overlap policies"
is "$(complete_words sluice schedule add x --cron @daily --template ni)" \
    "nightly-backup " "template names after --template"
is "$(complete_words sluice run nightly-backup -i '')" "greeting= who= " \
    "a template's input keys after -i"
is "$(complete_words sluice template run nightly-backup -i w)" "who= " \
    "template run too, by prefix"
is "$(complete_words sluice schedule add n --template nightly-backup -i '')" \
    "greeting= who= " "schedule add: the keys of its --template"
run_sluice schedule add nightly --cron @daily --template nightly-backup -i who=x
is "$(complete_words sluice schedule pause ni)" "nightly " "schedule names"
is "$(complete_words sluice help sch)" "schedule " "help takes command names"
is "$(complete_words sluice completion '')" "bash fish zsh " "completion shells"

# Ids from the database: workflows for show, waiting gates for approve.
"$SLUICE" run nightly-backup -i who=a >/dev/null 2>&1
w1=$(sqlite3 "$SLUICE_DB" 'SELECT max(id) FROM workflows')
is "$(complete_words sluice show '')" "$w1 " "workflow ids for show"
is "$(complete_words sluice cancel '')" "$w1 " "and for cancel"
is "$(complete_words sluice approve '')" "" "no gate waits yet"
"$SLUICE" run --wait nightly-backup -i who=b >/dev/null 2>&1 &
rpid=$!
i=0
until [ -n "$(sqlite3 "$SLUICE_DB" "SELECT id FROM workflow_steps WHERE status = 'waiting'" 2>/dev/null)" ] || [ $i -ge 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
g=$(sqlite3 "$SLUICE_DB" "SELECT id FROM workflow_steps WHERE status = 'waiting'
    ORDER BY CAST(id AS TEXT)" | tr '\n' ' ')
is "$(complete_words sluice approve '')" "$g" "the waiting gates' step ids"
like "$(complete_words sluice log '')" "$g" "step ids for log"
"$SLUICE" cancel "$(sqlite3 "$SLUICE_DB" 'SELECT max(id) FROM workflows')" >/dev/null 2>&1
wait "$rpid" 2>/dev/null
is "$(complete_words sluice show 1 '')" "" "show takes one id"

# Files where a command takes one.
touch "$T_DIR/flow-one.json"
is "$(cd "$T_DIR" && complete_words sluice check flow-o)" "flow-one.json " \
    "check completes files"
like "$(cd "$T_DIR" && complete_words sluice run '')" "flow-one.json" \
    "run completes files"
like "$(cd "$T_DIR" && complete_words sluice run '')" "nightly-backup" \
    "and template names"

# Never a new database.
missing="$T_DIR/none/sluice.db"
complete_words sluice --db "$missing" show '' >/dev/null
complete_words sluice --db "$missing" template show '' >/dev/null
SLUICE_DB="$missing" complete_words sluice approve '' >/dev/null
[ ! -e "$missing" ] && [ ! -e "$T_DIR/none" ]
ok $? "completing against a missing database creates nothing"

# -d: each word with what it is, from the command tables.
run_sluice __complete -d -- log --j
is "$OUT" "$(printf -- '--json\tone JSON document of the step'"'"'s lines; with -f, one JSON object a line as lines come')" \
    "__complete -d: an option and its help line"
run_sluice __complete -d -- templ
is "$OUT" "$(printf 'template\tList, show, save, edit, remove, run and compare templates.')" \
    "__complete -d: a command and its summary"
run_sluice __complete -d -- template sh
is "$OUT" "$(printf "show\tPrint a template's document as saved.")" \
    "__complete -d: a subcommand and its summary"
run_sluice __complete -d -- --ver
is "$OUT" "$(printf -- '--version\tprint the version')" \
    "__complete -d: a global option"
run_sluice __complete -d -- template show ni
is "$OUT" "nightly-backup" "__complete -d: names from the database have none"
is "$(complete_words sluice log --j)" "--json " "bash gets no descriptions"

if command -v zsh >/dev/null 2>&1; then
	zsh -n "$TOP_SRCDIR/share/completion/_sluice"
	ok $? "the zsh script parses (zsh -n)"
	out=$(PATH="$T_DIR/bin:$PATH" zsh -fc '
		autoload -Uz compinit && compinit -u -D
		source "$1/share/completion/_sluice"
		print -r -- ${_comps[sluice]}' sh "$TOP_SRCDIR")
	is "$out" _sluice "zsh: sourcing it registers _sluice for sluice"
	# zsh_list LINE: what an interactive zsh lists after LINE<Tab>,
	# driven in a pseudo-terminal (zsh/zpty) as a person would.
	zsh_list() {
		PATH="$T_DIR/bin:$PATH" TERM=dumb HOME="$T_DIR" zsh -f -c '
			zmodload zsh/zpty || exit 1
			zpty z zsh -f -i
			zpty -w z "PS1=\"> \"; autoload -Uz compinit; compinit -u -D; source $1/share/completion/_sluice; LISTMAX=1000"
			zpty -n -w z "$2"$'"'"'\t'"'"'
			out= i=0
			# Read until the listing is followed by the prompt again.
			while (( i++ < 100 )); do
				zpty -r -t z chunk && out+=$chunk
				[[ $out == *" -- "*"> $2"* ]] && break
				sleep 0.1
			done
			zpty -d z
			print -r -- "$out"' sh "$TOP_SRCDIR" "$1" | tr -d '\r'
	}
	# zsh_has LISTING ERE DESCRIPTION: a line of the listing matches.
	zsh_has() {
		printf '%s\n' "$1" | grep -Eq -- "$2"
		ok $? "$3"
	}
	out=$(zsh_list 'sluice log --')
	zsh_has "$out" '^--json +-- one JSON document of the step' \
	    "zsh: options are listed with their help lines"
	zsh_has "$out" '^--follow +-- keep printing output until the step ends' \
	    "zsh: every option of log"
	out=$(zsh_list 'sluice template ')
	zsh_has "$out" "^show +-- Print a template's document as saved\\." \
	    "zsh: subcommands with their summaries"
	out=$(zsh_list 'sluice s')
	zsh_has "$out" '^schedule +-- Recurring schedules: a template run' \
	    "zsh: commands with their summaries"
	zsh_has "$out" '^show +-- ' "zsh: every one that fits"
	out=$(zsh_list 'sluice run nightly-backup -i ')
	zsh_has "$out" '^greeting= +who= *$' "zsh: input keys, no description"
else
	ok 0 "# SKIP zsh is not installed: the zsh script is not checked"
fi
if command -v fish >/dev/null 2>&1; then
	fish -n "$TOP_SRCDIR/share/completion/sluice.fish"
	ok $? "the fish script parses (fish -n)"
	out=$(PATH="$T_DIR/bin:$PATH" HOME="$T_DIR" fish -c "
		source $TOP_SRCDIR/share/completion/sluice.fish
		complete -C'sluice template show ni'")
	like "$out" "nightly-backup" "fish: it completes template names"
	out=$(PATH="$T_DIR/bin:$PATH" HOME="$T_DIR" fish -c "
		source $TOP_SRCDIR/share/completion/sluice.fish
		complete -C'sluice log --'")
	like "$out" "$(printf -- '--raw\tthe bytes as the step wrote them')" \
	    "fish: options with their help lines"
	out=$(PATH="$T_DIR/bin:$PATH" HOME="$T_DIR" fish -c "
		source $TOP_SRCDIR/share/completion/sluice.fish
		complete -C'sluice template r'")
	is "$out" "$(printf 'rm\tRemove a template (its old versions and runs are kept).\nrun\tStart a workflow from a template; print its id.')" \
	    "fish: subcommands with their summaries"
else
	ok 0 "# SKIP fish is not installed: the fish script is not checked"
fi

done_testing
