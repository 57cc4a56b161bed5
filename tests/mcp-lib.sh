# tests/mcp-lib.sh: speaking MCP to sluice mcp with plain pipes, sourced
# after tests/lib.sh by every shell test that does.  One protocol revision
# for them all (sluice's latest); a test about revision agreement names
# the others itself.

MCP_VERSION=2025-11-25
MCP_INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"'$MCP_VERSION'","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
MCP_INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# mcp_call ID TOOL ARGS: a tools/call request line.
mcp_call() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' \
	    "$1" "$2" "$3"
}

# mcp_answer ID: the answer line to request ID in $T_DIR/mcp.out (sluice
# writes jsonrpc, then id).
mcp_answer() {
	grep "^{\"jsonrpc\":\"2.0\",\"id\":$1," "$T_DIR/mcp.out"
}

# mcp_get ID PATH: a JSON path of the answer to request ID.
mcp_get() {
	json_query "$(mcp_answer "$1")" "SELECT json_extract(j, '$2') FROM d"
}

# mcp_session LINE...: one session of sluice mcp, initialized, each
# argument a request line after the handshake; stdout in $T_DIR/mcp.out,
# stderr in $T_DIR/mcp.err, exit in $RC.  MCP_AS=USER runs it as USER
# (tests/service-lib.sh's as).
mcp_session() {
	if [ -n "${MCP_AS:-}" ]; then
		printf '%s\n' "$MCP_INIT" "$MCP_INITED" "$@" |
		    as "$MCP_AS" "$SLUICE" mcp >"$T_DIR/mcp.out" 2>"$T_DIR/mcp.err"
	else
		printf '%s\n' "$MCP_INIT" "$MCP_INITED" "$@" |
		    "$SLUICE" mcp >"$T_DIR/mcp.out" 2>"$T_DIR/mcp.err"
	fi
	RC=$?
}
