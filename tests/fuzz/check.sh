#!/bin/sh
# tests/fuzz/check.sh: a short run of every libFuzzer target, for make
# check.  Each target is built with clang (libFuzzer, ASan and UBSan) and
# run for SLUICE_FUZZ_SECONDS (default 5) from its seeds; a crash, a leak,
# a sanitizer report or a time-out fails its case, and the input that did
# it is printed (base64) to reproduce with.  Skipped, saying why, where clang or libFuzzer is missing
# (./quickstart installs them).  tests/fuzz/run.sh runs one target longer.
#
# The targets, each tests/fuzz/fuzz-NAME.c over the pure code it names:
#   flow  the flow layer: documents, checking, conditions, interpolation
#   rpc   the JSON-RPC decoder (src/util/rpc.c) every MCP message passes
#         through
#   request  the engine socket's request decoder (engine_request_decode,
#         src/engine/protocol.c) every client's line passes through
#   answer   the client API's answer decoder (engine_reply_read, the same
#         file) every reply, inbox answer and outcome passes through

. "$TOP_SRCDIR/tests/lib.sh"

top=$TOP_SRCDIR
secs=${SLUICE_FUZZ_SECONDS:-5}
cc=${CLANG:-clang}
command -v "$cc" >/dev/null 2>&1 ||
    skip_all "no clang to build the fuzz targets (apt-get install clang)"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)\n{ return (0); }\n' \
    >"$T_DIR/probe.c"
"$cc" -fsanitize=fuzzer "$T_DIR/probe.c" -o "$T_DIR/probe" \
    >"$T_DIR/probe.err" 2>&1 ||
    skip_all "clang has no libFuzzer here (apt-get install libclang-rt-14-dev)"

cflags="-g -O1 -D_GNU_SOURCE -I$top/src $(pkg-config --cflags libbsd-overlay libmd libcjson)"
libs="$(pkg-config --libs libbsd-overlay libmd libcjson) -lm"
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

# obj SRC...: compile each into $T_DIR/obj once, for every target to link.
mkdir -p "$T_DIR/obj"
obj() {
	for _s in "$@"; do
		_o=$T_DIR/obj/$(echo "${_s#"$top"/src/}" | tr / -).o
		[ -f "$_o" ] || printf '%s %s\n' "$_s" "$_o"
	done | xargs -r -n 2 -P 2 sh -c \
	    "$cc $cflags $san -fsanitize=fuzzer-no-link -c \"\$0\" -o \"\$1\"" \
	    2>"$T_DIR/obj.err"
	for _s in "$@"; do
		echo "$T_DIR/obj/$(echo "${_s#"$top"/src/}" | tr / -).o"
	done
}

# The sources of each target beside its own file.
util=$(ls "$top"/src/util/*.c)
flow=$(ls "$top"/src/flow/*.c)

# seed_lines NAME TEXT...: each TEXT a seed file of NAME's corpus.
seed_lines() {
	_c=$1
	shift
	_i=0
	for _m in "$@"; do
		printf '%s' "$_m" >"$T_DIR/$_c.corpus/seed$_i"
		_i=$((_i + 1))
	done
}

# seeds NAME: the corpus a target starts from.
seeds() {
	mkdir -p "$T_DIR/$1.corpus"
	case $1 in
	flow)
		cp "$top"/tests/data/*/*.json "$top"/share/templates/*.json \
		    "$T_DIR/flow.corpus/" 2>/dev/null || :
		;;
	rpc)
		seed_lines rpc \
		    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}' \
		    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
		    '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"workflow_list","arguments":{"limit":5}}}' \
		    '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"ok":true}}}' \
		    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error","data":[1]}}' \
		    '[{"jsonrpc":"2.0","id":3,"method":"ping"}]'
		;;
	request)
		seed_lines request \
		    '{"command":"ping"}' \
		    '{"command":"approve","request":"0123456789abcdef0123456789abcdef","step_id":7,"args":{"comment":"ok"},"tty":"/dev/pts/3","host":"ws1"}' \
		    '{"command":"start","request":"r-1","args":{"name":"n","flow":{"start":{"tool":"noop"}},"input":{"a":1}},"via":"mcp"}' \
		    '{"command":"outcome","request":"r-1"}' \
		    '{"command":"cancel","workflow_id":9007199254740992,"step_id":null,"args":null,"via":"x"}' \
		    '{"command":5,"request":"a b"}'
		;;
	answer)
		seed_lines answer \
		    '{"code":0,"message":"approved step 7 (deploy)","workflow_id":3}' \
		    '{"code":0,"pid":12,"host":"h","uid":1000,"user":"kim","waiting":"the lock","waiting_since":1795000000000}' \
		    '{"code":0,"version":4,"conflict":true}' \
		    '{"code":0,"pruned":{"runs":100,"steps":900,"logs":3,"next":77}}' \
		    '{"code":0,"outcome":"applied","reply":{"code":4,"message":"refused","step_id":2}}' \
		    '{"code":0,"outcome":"queued","queued":12}' \
		    '{"code":0,"outcome":"not applied"}' \
		    '{"code":1e300,"workflow_id":-1e300}'
		;;
	esac
}

# target NAME OBJECTS...: build fuzz-NAME, run it from its seeds, report.
target() {
	_n=$1
	shift
	seeds "$_n"
	if ! "$cc" $cflags $san -fsanitize=fuzzer "$top/tests/fuzz/fuzz-$_n.c" \
	    "$@" $libs -o "$T_DIR/fuzz-$_n" 2>"$T_DIR/$_n.build"; then
		ok 1 "fuzz-$_n builds"
		sed 's/^/#   /' "$T_DIR/obj.err" "$T_DIR/$_n.build" | head -20
		return
	fi
	ok 0 "fuzz-$_n builds"
	mkdir -p "$T_DIR/$_n.found"
	ASAN_OPTIONS=detect_leaks=1 "$T_DIR/fuzz-$_n" -max_total_time="$secs" \
	    -max_len=65536 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$T_DIR/$_n.found/" "$T_DIR/$_n.corpus" \
	    >"$T_DIR/$_n.out" 2>&1
	_rc=$?
	_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
	    "$T_DIR/$_n.out")
	ok "$_rc" "fuzz-$_n: ${_runs:-?} inputs in ${secs} s, no crash, leak or hang"
	if [ "$_rc" -ne 0 ]; then
		grep -E 'ERROR|SUMMARY|Test unit written|runtime error' \
		    "$T_DIR/$_n.out" | head -10 | sed 's/^/#   /'
		# The input that did it, to reproduce with: base64 -d | fuzz-NAME
		for _f in "$T_DIR/$_n.found"/*; do
			[ -f "$_f" ] || continue
			echo "#   $(basename "$_f") (base64):"
			head -c 4096 "$_f" | base64 | sed 's/^/#   /'
		done
	fi
}

target flow $(obj $util $flow)
target rpc $(obj $util)
target request $(obj $util "$top/src/engine/protocol.c")
target answer $(obj $util "$top/src/engine/protocol.c")

done_testing
