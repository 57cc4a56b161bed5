#!/bin/sh
# tests/cli/steps.sh: what a step runs and how: the built-in tools, run
# and shell, catalog tools with {{args.KEY}}, the SLUICE_* environment,
# cwd, stdin and descriptors, results as JSON or text, exit codes and
# signals, logs (log, -t, -f, the size bound), timeouts, and remote steps
# through a fake ssh that records its argv and runs the words locally,
# with hostile values that must arrive unchanged.

. "$TOP_SRCDIR/tests/lib.sh"

. "$TOP_SRCDIR/tests/engine-lib.sh"

# --- built-in tools -----------------------------------------------------------

cat >"$T_DIR/builtins.json" <<'EOF'
{"start": {"tool": "noop", "next": "e"},
 "e": {"tool": "echo", "args": {"a": [1, {"b": null}], "s": "t"}, "next": "z"},
 "z": {"tool": "sleep", "args": {"seconds": 0.3}}}
EOF
wait_run "$T_DIR/builtins.json"
expect_rc 0 "noop, echo and sleep complete"
is "$(col "$ID" start "status || '|' || result_json || '|' ||
    ifnull(exit_code, '-') || '|' || kind || '|' || tool")" \
    "done|null|-|tool|noop" "noop: done, result null, no exit code"
is "$(col "$ID" e result_json)" '{"a":[1,{"b":null}],"s":"t"}' \
    "echo: the result is its args"
is "$(col "$ID" z "status || '|' || result_json ||
    '|' || (completed_at - started_at >= 300) || '|' || ifnull(pid, '-')")" \
    "done|null|1|-" "sleep: waits its seconds in the engine (no process)"

cat >"$T_DIR/sleepstr.json" <<'EOF'
{"start": {"tool": "sleep", "args": {"seconds": "250ms"}}}
EOF
wait_run "$T_DIR/sleepstr.json"
expect_rc 0 "sleep takes a duration string"
is "$(col "$ID" start "completed_at - started_at >= 250")" 1 \
    "it slept 250 ms"

cat >"$T_DIR/sleepbad.json" <<'EOF'
{"start": {"tool": "sleep", "args": {"seconds": "{{input.s}}"},
  "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/sleepbad.json" -i s=forever
expect_rc 1 "sleep with a bad duration fails"
like "$(col "$ID" start error)" "sleep: bad seconds" "it says the seconds are bad"

cat >"$T_DIR/fail.json" <<'EOF'
{"start": {"tool": "fail", "args": {"message": "it {{input.w}}"},
  "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/fail.json" -i w=broke
expect_rc 1 "fail fails"
is "$(col "$ID" start "status || '|' || error || '|' || ifnull(exit_code, '-')")" \
    "failed|it broke|-" "fail: the error is its message"
is "$ERR" "sluice: workflow $ID failed: step start failed: it broke" \
    "the workflow's error names the step"
printf '%s\n' '{"start": {"tool": "fail", "retry": {"max_attempts": 1}}}' \
    >"$T_DIR/fail0.json"
wait_run "$T_DIR/fail0.json"
is "$(col "$ID" start error)" "failed" "fail with no message: \"failed\""

# --- run and shell ---------------------------------------------------------------

cat >"$T_DIR/run.json" <<'EOF'
{"start": {"run": ["printf", "%s|", "a b", "$HOME", "*", "{{input.v}}", "x{{input.v}}y"]}}
EOF
wait_run "$T_DIR/run.json" -i "v=\$(id) ; '\""
expect_rc 0 "run: argv with no shell"
is "$(col "$ID" start result_json)" \
    "\"a b|\$HOME|*|\$(id) ; '\\\"|x\$(id) ; '\\\"y|\"" \
    "every element is one argument, interpolated values included"
is "$(col "$ID" start "kind || '|' || tool || '|' || exit_code")" \
    "run|run|0" "the row says run, with exit code 0"

cat >"$T_DIR/shell.json" <<'EOF'
{"start": {"shell": "printf '%s|%s' \"$SLUICE_ARG_V\" '{{input.v}}'",
  "args": {"v": "{{input.v}}"}}}
EOF
wait_run "$T_DIR/shell.json" -i 'v=$(echo pwned)'
expect_rc 0 "shell: a script for /bin/sh -c"
is "$(col "$ID" start result_json)" '"$(echo pwned)|{{input.v}}"' \
    "args reach a script only as variables; its text is never interpolated"
is "$(col "$ID" start "kind || '|' || tool")" "shell|shell" "the row says shell"

# --- catalog tools ------------------------------------------------------------------

cat >"$T_DIR/tools.json" <<'EOF'
{
  "greet": {"run": ["printf", "%s", "hello {{args.who}}", "{{args.n}}"],
    "description": "say hello"},
  "envy": {"shell": "printf '%s|%s|%s' \"$T\" \"$U\" \"$SLUICE_ARG_WHO\"",
    "env": {"T": "tool-{{args.who}}", "U": "tool"}},
  "flaky": {"shell": "[ \"$SLUICE_ATTEMPT\" -ge 2 ]",
    "retry": {"max_attempts": 2, "backoff": ["10ms"]}},
  "slow": {"run": ["sleep", "30"], "timeout": "300ms"},
  "remote": {"run": ["printf", "%s", "{{args.v}}"], "host": "toolhost"}
}
EOF
cat >"$T_DIR/catalog.json" <<'EOF'
{"start": {"tool": "greet", "args": {"who": "{{input.who}}", "n": 3}, "next": "b"},
 "b": {"tool": "envy", "args": {"who": "bob"}, "env": {"U": "step"}, "next": "c"},
 "c": {"tool": "flaky"}}
EOF
wait_run "$T_DIR/catalog.json" -i "who=a b"
expect_rc 2 "a flow naming tools not in the catalog is refused"
like "$ERR" "unknown tool \"greet\"" "it names the unknown tool"
run_sluice --tools "$T_DIR/tools.json" run --wait "$T_DIR/catalog.json" -i "who=a b"
ID=$(new_id)
expect_rc 0 "catalog tools run with --tools"
is "$(col "$ID" start "kind || '|' || tool || '|' || result_json")" \
    'tool|greet|"hello a b3"' "run elements take {{args.KEY}}, keeping words whole"
is "$(col "$ID" b result_json)" '"tool-bob|step|bob"' \
    "tool env is interpolated; the step's env wins over the tool's"
q_is "SELECT attempt, status FROM workflow_steps WHERE workflow_id = $ID
    AND name = 'c' ORDER BY id" "1|failed
2|done" "the tool's retry policy applies"
SLUICE_TOOLS="$T_DIR/tools.json" run_sluice run --wait "$T_DIR/catalog.json" -i who=x
expect_rc 0 "\$SLUICE_TOOLS names the catalog too"

cat >"$T_DIR/slowtool.json" <<'EOF'
{"start": {"tool": "slow", "retry": {"max_attempts": 1}}}
EOF
run_sluice --tools "$T_DIR/tools.json" run --wait "$T_DIR/slowtool.json"
ID=$(new_id)
expect_rc 1 "the tool's timeout applies"
is "$(col "$ID" start "error || '|' || (completed_at - started_at < 5000)")" \
    "timeout|1" "the step failed with timeout, soon"

# The catalog the engine read at its start is the one that counts.
run_sluice --tools "$T_DIR/tools.json" run "$T_DIR/slowtool.json"
idu=$OUT
printf '{"start": {"tool": "noop"}}\n' >"$T_DIR/n.json"
run_sluice run --wait "$T_DIR/n.json"
expect_rc 0 "an engine with no catalog runs other workflows"
wait_for wf_ended "$idu"
is "$(q "SELECT status, error FROM workflow_steps WHERE workflow_id = $idu")" \
    'failed|unknown tool "slow" (not in the engine'"'"'s catalog)' \
    "a tool the engine's catalog lacks fails the step"

# --- environment ------------------------------------------------------------------

cat >"$T_DIR/env.json" <<'EOF'
{"start": {"shell": "for v in SLUICE_WORKFLOW_ID SLUICE_STEP_ID SLUICE_STEP SLUICE_ATTEMPT SLUICE_ARG_NAME SLUICE_ARG_MY_KEY SLUICE_ARG_N SLUICE_ARG_OBJ SLUICE_ARG_A_B SLUICE_ARG_FAKE SLUICE_ARGS FROM_ENGINE E1 E2 PATH_SEEN; do eval \"printf '%s=%s\\n' \\$v \\\"\\${$v-unset}\\\"\"; done",
  "name": "env-step",
  "args": {"name": "{{input.who}}", "my-key": "k", "n": 5, "obj": {"x": [true]},
    "a-b": "first", "a_b": "second"},
  "env": {"E1": "{{input.who}}!", "E2": "{{workflow.id}}", "SLUICE_STEP": "forged",
    "SLUICE_ARG_FAKE": "forged", "FROM_ENGINE": "overridden"}}}
EOF
FROM_ENGINE=engine SLUICE_ARG_FAKE=inherited SLUICE_STEP=inherited \
    run_sluice run --wait "$T_DIR/env.json" -i who=ann
ID=$(new_id)
expect_rc 0 "a step sees its environment"
sid=$(col "$ID" env-step id)
run_sluice log "$sid"
is "$OUT" "SLUICE_WORKFLOW_ID=$ID
SLUICE_STEP_ID=$sid
SLUICE_STEP=env-step
SLUICE_ATTEMPT=1
SLUICE_ARG_NAME=ann
SLUICE_ARG_MY_KEY=k
SLUICE_ARG_N=5
SLUICE_ARG_OBJ={\"x\":[true]}
SLUICE_ARG_A_B=second
SLUICE_ARG_FAKE=unset
SLUICE_ARGS={\"name\":\"ann\",\"my-key\":\"k\",\"n\":5,\"obj\":{\"x\":[true]},\"a-b\":\"first\",\"a_b\":\"second\"}
FROM_ENGINE=overridden
E1=ann!
E2=$ID
PATH_SEEN=unset" \
    "SLUICE_* are set by sluice alone; env is interpolated and wins over the engine's"

printf '%s\n' '{"start": {"shell": "printf %s \"$FROM_ENGINE\""}}' >"$T_DIR/inherit.json"
FROM_ENGINE=kept run_sluice run --wait "$T_DIR/inherit.json"
ID=$(new_id)
is "$(col "$ID" start result_json)" '"kept"' "the engine's environment is inherited"

mkdir -p "$T_DIR/bin"
printf '#!/bin/sh\necho mine\n' >"$T_DIR/bin/mytool"
chmod +x "$T_DIR/bin/mytool"
cat >"$T_DIR/path.json" <<EOF
{"start": {"run": ["mytool"], "env": {"PATH": "$T_DIR/bin:/usr/bin:/bin"}}}
EOF
wait_run "$T_DIR/path.json"
expect_rc 0 "a program is found in the step's own PATH"
is "$(col "$ID" start result_json)" '"mine"' "it ran"

cat >"$T_DIR/noprog.json" <<'EOF'
{"start": {"run": ["no-such-program-here"], "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/noprog.json"
expect_rc 1 "a missing program fails the step"
is "$(col "$ID" start "error || '|' || exit_code")" "exit status 127|127" \
    "with exit status 127"
run_sluice log "$(col "$ID" start id)"
like "$OUT" "no-such-program-here" "the log names the program"

# --- process set-up: cwd, stdin, descriptors, group -------------------------------
# The step lists its descriptors from a subshell into a file: while the
# shell sets up a pipeline, $(...) or a redirection it holds descriptors
# of its own.

mkdir -p "$T_DIR/wd" "$T_DIR/other dir"
cat >"$T_DIR/cwd.json" <<EOF
{"start": {"shell": "pwd", "cwd": "$T_DIR/other dir", "next": "b"},
 "b": {"shell": "pwd", "next": "c"},
 "c": {"shell": "cat; (ls /proc/\$\$/fd >\"$T_DIR/fds\"); printf 'fds: '; sort -n \"$T_DIR/fds\" | tr '\\\\n' ' '; [ \"\$(ps -o pgid= -p \$\$ | tr -d ' ')\" = \$\$ ] && echo leader"}}
EOF
(cd "$T_DIR/wd" && "$SLUICE" run --wait "$T_DIR/cwd.json" 7>"$T_DIR/fd7" \
    >"$T_DIR/out" 2>"$T_DIR/err" </dev/null)
is "$?" 0 "steps with and without cwd complete"
ID=$(new_id)
is "$(col "$ID" start result_json)" "\"$T_DIR/other dir\"" "cwd sets the directory"
is "$(col "$ID" b result_json)" "\"$T_DIR/wd\"" \
    "with no cwd a step runs in the engine's directory"
is "$(col "$ID" c result_json)" '"fds: 0 1 2 leader"' \
    "stdin is empty, only 0, 1 and 2 are open, and the step leads its group"

cat >"$T_DIR/badcwd.json" <<'EOF'
{"start": {"shell": "pwd", "cwd": "/nonexistent/{{input.d}}",
  "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/badcwd.json" -i d=x
expect_rc 1 "a missing cwd fails the step"
run_sluice log "$(col "$ID" start id)"
like "$OUT" "/nonexistent/{{input.d}}" "cwd is not interpolated; the log names it"

# --- results and exit codes --------------------------------------------------------

cat >"$T_DIR/results.json" <<'EOF'
{"start": {"shell": "echo '{\"a\": [1, 2]}'", "next": "t"},
 "t": {"shell": "printf 'two\\n\\n'", "next": "n"},
 "n": {"shell": "echo 42", "next": "n2"},
 "n2": {"shell": "echo 42 apples", "next": "s"},
 "s": {"shell": "echo '\"q\"'", "next": "e"},
 "e": {"shell": "echo to stderr >&2", "next": "p"},
 "p": {"shell": "echo '{\"a\": 1'"}}
EOF
wait_run "$T_DIR/results.json"
expect_rc 0 "results"
is "$(col "$ID" start result_json)" '{"a":[1,2]}' "stdout that parses is JSON"
is "$(col "$ID" t result_json)" '"two\n"' "text loses one trailing newline"
is "$(col "$ID" n result_json)" '42' "a number is a number"
is "$(col "$ID" n2 result_json)" '"42 apples"' \
    "text that only starts like JSON stays text"
is "$(col "$ID" s result_json)" '"q"' "a JSON string is a string"
is "$(col "$ID" e result_json)" '""' "no stdout: an empty string (stderr is not the result)"
is "$(col "$ID" p result_json)" '"{\"a\": 1"' "what does not parse stays text"

cat >"$T_DIR/exit.json" <<'EOF'
{"start": {"shell": "echo partial; exit 3", "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/exit.json"
expect_rc 1 "a non-zero exit fails the step"
is "$(col "$ID" start "status || '|' || error || '|' || exit_code || '|' || result_json")" \
    'failed|exit status 3|3|"partial"' "error, exit code and output are kept"
is "$ERR" "sluice: workflow $ID failed: step start failed: exit status 3" \
    "the workflow says so"

cat >"$T_DIR/signal.json" <<'EOF'
{"start": {"shell": "kill -9 $$", "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/signal.json"
expect_rc 1 "a step killed by a signal fails"
is "$(col "$ID" start "error || '|' || exit_code")" "killed by signal 9|137" \
    "killed by signal 9, exit code 137"

# --- logs ----------------------------------------------------------------------------

cat >"$T_DIR/log.json" <<'EOF'
{"start": {"shell": "echo one; sleep 0.2; echo two >&2; sleep 0.2; printf 'three\\nfour'"}}
EOF
wait_run "$T_DIR/log.json"
lid=$(col "$ID" start id)
run_sluice log "$lid"
expect_rc 0 "log"
is "$OUT" "one
two
three
four" "stdout and stderr in the order they came"
run_sluice log -t "$lid"
expect_rc 0 "log -t"
printf '%s\n' "$OUT" >"$T_DIR/logt"
n=$(grep -cE '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3} (out|err) ' "$T_DIR/logt")
is "$n" 4 "-t puts the time and stream in front of every line"
like "$OUT" " err two" "stderr lines say err"
like "$OUT" " out three" "stdout lines say out"
run_sluice log --json "$lid"
expect_rc 0 "log --json"
is "$(printf '%s' "$OUT" | jq -r '[.id, .workflow_id, .name, .truncated] | @tsv')" \
    "$(printf '%s\t%s\tstart\tfalse' "$lid" "$ID")" \
    "log --json: the step's id, workflow, name, and not truncated"
is "$(printf '%s' "$OUT" | jq -r '.lines[] | .stream + " " + .text')" \
    "stdout one
stderr two
stdout three
stdout four" "log --json: each line with its stream, the unended last too"
is "$(printf '%s' "$OUT" | jq -r '.lines[].time' |
    grep -cE '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$')" \
    4 "log --json: times are RFC 3339 UTC with milliseconds"
like "$OUT" '{
  "id": ' "log --json: indented with two spaces"
run_sluice log --json -t "$lid"
expect_rc 2 "log --json -t is refused"
like "$ERR" "log: --json takes neither -t nor --raw" "it says why"
run_sluice log 99999
expect_rc 3 "log of an unknown step"
run_sluice log x
expect_rc 2 "log with a bad id"

cat >"$T_DIR/follow.json" <<EOF
{"start": {"shell": "echo one; i=0; while [ ! -f $T_DIR/go ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i+1)); done; echo two"}}
EOF
engine_start
run_sluice run "$T_DIR/follow.json"
idf=$OUT
wait_for step_is "$idf" start running
fid=$(step_id "$idf" start)
"$SLUICE" log -f "$fid" >"$T_DIR/follow.out" 2>&1 &
lf=$!
wait_for file_has "$T_DIR/follow.out" one
ok $? "log -f prints what there is"
alive "$lf"
ok $? "log -f keeps following while the step runs"
touch "$T_DIR/go"
wait "$lf"
is "$?" 0 "log -f exits 0 when the step ends"
is "$(cat "$T_DIR/follow.out")" "one
two" "log -f printed everything once"
# -f --json: one compact object a line, each as it comes.
rm -f "$T_DIR/go"
run_sluice run "$T_DIR/follow.json"
idf=$OUT
wait_for step_is "$idf" start running
fid=$(step_id "$idf" start)
"$SLUICE" log -f --json "$fid" >"$T_DIR/followj.out" 2>&1 &
lf=$!
wait_for file_has "$T_DIR/followj.out" '"text":"one"'
ok $? "log -f --json prints each line as it comes"
alive "$lf"
ok $? "and keeps following while the step runs"
touch "$T_DIR/go"
wait "$lf"
is "$?" 0 "log -f --json exits 0 when the step ends"
is "$(jq -c '[.stream, .text]' <"$T_DIR/followj.out")" '["stdout","one"]
["stdout","two"]' "log -f --json: one JSON object a line, everything once"
engine_stop

cat >"$T_DIR/big.json" <<'EOF'
{"start": {"shell": "head -c 1572864 /dev/zero | tr '\\0' x; echo; echo done >&2"}}
EOF
wait_run "$T_DIR/big.json"
expect_rc 0 "a step with 1.5 MiB of output completes"
bid=$(col "$ID" start id)
is "$(col "$ID" start log_bytes)" 1048576 "the log keeps 1 MiB"
is "$(col "$ID" start "length(result_json)")" 1048578 \
    "the result keeps 1 MiB of stdout"
q_is "SELECT sum(length(data)) FROM step_logs WHERE step_id = $bid AND
    stream != 'sluice'" 1048576 "exactly 1 MiB of output rows"
q_is "SELECT stream, replace(CAST(data AS TEXT), char(10), '\\n') FROM step_logs
    WHERE step_id = $bid ORDER BY id DESC LIMIT 1" \
    "sluice|[sluice: output cut here: a step keeps at most 1048576 bytes of log]\\n" \
    "one line marks the cut"
"$SLUICE" log "$bid" >"$T_DIR/biglog"
is "$(tail -c 200 "$T_DIR/biglog" | tail -n 1)" \
    "[sluice: output cut here: a step keeps at most 1048576 bytes of log]" \
    "log shows the mark at the end"
is "$(wc -c <"$T_DIR/biglog" | tr -d ' ')" 1048646 "log prints 1 MiB and the mark"
"$SLUICE" log --json "$bid" >"$T_DIR/biglog.json"
is "$(jq -r '.truncated, (.lines[-1] | .stream + " " + .text)' \
    <"$T_DIR/biglog.json")" "true
sluice [sluice: output cut here: a step keeps at most 1048576 bytes of log]" \
    "log --json: truncated, and the mark is the last line"

# --- timeouts --------------------------------------------------------------------------

cat >"$T_DIR/timeout.json" <<EOF
{"start": {"shell": "sleep 30 & echo \$! >$T_DIR/tgc.pid; echo \$\$ >$T_DIR/t.pid; wait",
  "timeout": "300ms", "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/timeout.json"
expect_rc 1 "a step past its timeout fails"
is "$(col "$ID" start "status || '|' || error || '|' || exit_code")" \
    "failed|timeout|143" "with reason timeout (killed by SIGTERM)"
is "$(col "$ID" start "timeout_at - started_at BETWEEN 250 AND 1000")" 1 \
    "the row records when it times out"
is "$ERR" "sluice: workflow $ID failed: step start failed: timeout" \
    "the workflow says timeout"
dead "$(cat "$T_DIR/t.pid")" && dead "$(cat "$T_DIR/tgc.pid")"
ok $? "the whole process group was killed"

cat >"$T_DIR/stubborn.json" <<EOF
{"start": {"shell": "trap '' TERM; echo \$\$ >$T_DIR/s.pid; while :; do sleep 0.05; done",
  "timeout": 0.3, "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/stubborn.json"
expect_rc 1 "a step that ignores SIGTERM still times out"
is "$(col "$ID" start "error || '|' || exit_code")" "timeout|137" \
    "SIGKILL after the grace"
dead "$(cat "$T_DIR/s.pid")"
ok $? "it is gone"

cat >"$T_DIR/notimeout.json" <<'EOF'
{"start": {"shell": "sleep 0.3", "timeout": 0}}
EOF
run_sluice run "$T_DIR/notimeout.json"
expect_rc 2 "timeout 0 is refused (a timeout is above zero)"
like "$ERR" 'timeout must be above zero' "and says why"
[ "$RC" -eq 0 ] && is "$(col "$ID" start "ifnull(timeout_at, '-')")" "-" \
    "no timeout is recorded"

printf '%s\n' '{"start": {"run": ["true"]}}' >"$T_DIR/deftimeout.json"
wait_run "$T_DIR/deftimeout.json"
is "$(col "$ID" start "timeout_at - started_at")" 120000 "the default timeout is 120 s"

# --- remote steps through a fake ssh ------------------------------------------------------

mkdir -p "$T_DIR/fakebin"
cat >"$T_DIR/fakebin/ssh" <<EOF
#!/bin/sh
# A fake ssh: record argv, then run the remote words with sh -c here.
n=0
for a in "\$@"; do
	n=\$((n + 1))
	printf '%s\n' "\$a" >"$T_DIR/ssh.arg\$n"
done
echo "\$n" >"$T_DIR/ssh.argc"
while [ \$# -gt 0 ] && [ "\$1" != "--" ]; do shift; done
shift
exec env -i PATH="\$PATH" sh -c "\$*"
EOF
chmod +x "$T_DIR/fakebin/ssh"

hostile="it's \"\$(touch $T_DIR/pwned)\" \`touch $T_DIR/pwned\` ; touch $T_DIR/pwned '\\'' \\ \$HOME
newline"
printf '%s' "$hostile" >"$T_DIR/hostile.txt"
mkdir -p "$T_DIR/remote dir"
cat >"$T_DIR/remote.json" <<EOF
{"start": {"host": "db1.example", "cwd": "$T_DIR/remote dir",
   "run": ["sh", "-c", "pwd; printf '%s' \"\$1\" >\"\$2\"; printf '%s' \"\$SLUICE_ARG_V\" >\"\$3\"; printf '%s' \"\$E\" >\"\$4\"; printf '%s' \"\${SECRET-unset}\"", "x",
     "{{input.v}}", "$T_DIR/r.argv", "$T_DIR/r.arg", "$T_DIR/r.env"],
   "args": {"v": "{{input.v}}"}, "env": {"E": "{{input.v}}"}}}
EOF
PATH="$T_DIR/fakebin:$PATH" SECRET=engine-only \
    run_sluice run --wait "$T_DIR/remote.json" --input /dev/stdin <<EOF
EOF
printf '{"v": %s}' "$(sqlite3 :memory: "SELECT json_quote(CAST(readfile('$T_DIR/hostile.txt') AS TEXT))")" \
    >"$T_DIR/hostile.json"
PATH="$T_DIR/fakebin:$PATH" SECRET=engine-only \
    run_sluice run --wait "$T_DIR/remote.json" --input "$T_DIR/hostile.json"
ID=$(new_id)
expect_rc 0 "a remote step runs through ssh"
is "$(cat "$T_DIR/ssh.argc")" 5 "ssh gets five arguments"
is "$(cat "$T_DIR/ssh.arg1") $(cat "$T_DIR/ssh.arg2") $(cat "$T_DIR/ssh.arg3") $(cat "$T_DIR/ssh.arg4")" \
    "-o BatchMode=yes db1.example --" "ssh -o BatchMode=yes HOST --"
remote=$(cat "$T_DIR/ssh.arg5")
like "$remote" "cd '$T_DIR/remote dir' && env 'E=it'\\''s " \
    "the remote command changes directory, then sets the step's variables"
like "$remote" "p=\$PPID; (trap '' TERM; while kill -0 " \
    "a watcher ends the remote command when the connection goes"
case $remote in
*"; s=\$?; kill \"\$w\" 2>/dev/null; exit \"\$s\"") r=0 ;;
*) r=1 ;;
esac
ok "$r" "the remote shell ends with the command's status, the watcher gone"
like "$remote" " 'SLUICE_WORKFLOW_ID=$ID' 'SLUICE_STEP_ID=" \
    "the SLUICE_* variables are sent, quoted"
unlike "$remote" "engine-only" "the engine's own environment is not sent"
cmp -s "$T_DIR/r.argv" "$T_DIR/hostile.txt"
ok $? "a hostile value arrives as one argument, unchanged"
cmp -s "$T_DIR/r.arg" "$T_DIR/hostile.txt"
ok $? "and as SLUICE_ARG_V"
cmp -s "$T_DIR/r.env" "$T_DIR/hostile.txt"
ok $? "and through env"
[ ! -e "$T_DIR/pwned" ]
ok $? "nothing in the value ran"
is "$(col "$ID" start "host || '|' || result_json")" \
    "db1.example|\"$T_DIR/remote dir\\nunset\"" \
    "the row names the host; the remote output is the result"

cat >"$T_DIR/remotetool.json" <<'EOF'
{"start": {"tool": "remote", "args": {"v": "x'y"}}}
EOF
PATH="$T_DIR/fakebin:$PATH" \
    run_sluice --tools "$T_DIR/tools.json" run --wait "$T_DIR/remotetool.json"
ID=$(new_id)
expect_rc 0 "a catalog tool with a host runs remotely"
is "$(cat "$T_DIR/ssh.arg3")" toolhost "the tool's host is used"
is "$(col "$ID" start result_json)" "\"x'y\"" "the value arrives intact"

for h in "-oProxyCommand=touch $T_DIR/pwned" "two words" "tab	x"; do
	cat >"$T_DIR/badhost.json" <<EOF
{"start": {"host": "$h", "run": ["true"], "retry": {"max_attempts": 1}}}
EOF
	rm -f "$T_DIR/ssh.argc"
	PATH="$T_DIR/fakebin:$PATH" run_sluice run --wait "$T_DIR/badhost.json"
	ID=$(new_id)
	expect_rc 1 "a bad host is refused: $h"
	like "$(col "$ID" start error)" "bad host" "the step says the host is bad"
	[ ! -e "$T_DIR/ssh.argc" ] && [ ! -e "$T_DIR/pwned" ]
	ok $? "ssh never ran"
done

cat >"$T_DIR/hostinterp.json" <<'EOF'
{"start": {"host": "{{input.h}}", "run": ["true"], "retry": {"max_attempts": 1}}}
EOF
PATH="$T_DIR/fakebin:$PATH" run_sluice run --wait "$T_DIR/hostinterp.json" -i h=web-01
expect_rc 0 "an interpolated host runs"
is "$(cat "$T_DIR/ssh.arg3")" "web-01" "ssh got the interpolated host"
rm -f "$T_DIR/ssh.argc"
PATH="$T_DIR/fakebin:$PATH" run_sluice run --wait "$T_DIR/hostinterp.json" -i h=-oX
ID=$(new_id)
expect_rc 1 "an interpolated host is checked after interpolation"
is "$(col "$ID" start error)" \
    "step \"start\": bad host \"-oX\" (from \"{{input.h}}\"): it must not start with '-'" \
    "the reason names the value and what the flow wrote"
[ ! -e "$T_DIR/ssh.argc" ]
ok $? "ssh never ran"

head -c 140000 /dev/zero | tr '\0' a >"$T_DIR/long"
printf '{"v": "%s"}' "$(cat "$T_DIR/long")" >"$T_DIR/long.json"
cat >"$T_DIR/toolong.json" <<'EOF'
{"start": {"run": ["printf", "{{input.v}}"], "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/toolong.json" --input "$T_DIR/long.json"
expect_rc 1 "an argument over 128 KiB is refused"
like "$(col "$ID" start error)" "argument 1 of the command is too long (140000 bytes" \
    "the step says which argument is too long"
cat >"$T_DIR/toolongenv.json" <<'EOF'
{"start": {"run": ["true"], "env": {"BIG": "{{input.v}}"}, "retry": {"max_attempts": 1}}}
EOF
wait_run "$T_DIR/toolongenv.json" --input "$T_DIR/long.json"
expect_rc 1 "a variable over 128 KiB is refused"
like "$(col "$ID" start error)" "BIG is too long" "the step names the variable"

# --- steps that call sluice on their own database -------------------------------

cat >"$T_DIR/child.json" <<'EOF'
{"start": {"tool": "echo", "args": {"child": true}}}
EOF
cat >"$T_DIR/nested.json" <<EOF
{"start": {"shell": "printf '%s' \"\$SLUICE_DB\" >$T_DIR/nested.db; \"\$SLUICE\" run --wait $T_DIR/child.json --name child",
  "cwd": "$T_DIR/wd"}}
EOF
(cd "$T_DIR" && SLUICE_DB=test.db "$SLUICE" run --wait "$T_DIR/nested.json" \
    >"$T_DIR/out" 2>"$T_DIR/err" </dev/null)
is "$?" 0 "a step runs sluice run --wait on its own database"
ID=$(q "SELECT max(id) FROM workflows WHERE name = 'nested'")
case "$(cat "$T_DIR/nested.db")" in
/*) ok 0 "SLUICE_DB names the database by an absolute path" ;;
*) ok 1 "SLUICE_DB names the database by an absolute path ($(cat "$T_DIR/nested.db"))" ;;
esac
q_is "SELECT w.status, s.result_json FROM workflows w JOIN workflow_steps s
    ON s.workflow_id = w.id WHERE w.name = 'child'" 'completed|{"child":true}' \
    "the child workflow ran in the same database, through the engine"
[ ! -e "$T_DIR/wd/test.db" ]
ok $? "no stray database was made in the step's directory"

done_testing
