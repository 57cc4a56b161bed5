#!/bin/sh
# tests/mcp/fake-server.sh MODE: a small MCP server on stdio for the
# engine's client, with scripted misbehaviour.  It speaks just enough of
# the protocol (initialize, then tools/call) to let each MODE answer or
# break in one way:
#   structured  structuredContent echoing the request, a notification and
#               a line on stderr first
#   text        text content "plain words"; jsontext: text that is JSON
#   env         structuredContent with the environment it was given
#   iserror     isError with a text; rpcerror: a JSON-RPC error
#   flaky       isError on attempt 1 (SLUICE_ATTEMPT), a result after
#   malformed   a line that is not JSON
#   badid       an answer to an id never sent
#   exitinit    exits 3 before answering initialize
#   exitcall    exits 4 in the middle of tools/call
#   slow        answers initialize, then never answers the call (its pid,
#               and a child's, in $FAKE_PIDS)
#   slowfirst   slow on attempt 1, then answers "attempt N"
#   dribble     its answer in three writes apart in time, ended by CRLF
#   progress    notifications/progress for the call's token (and one for
#               a token never given), then the answer
#   badversion  an unknown protocol version; initerror: refuses initialize
#   ping        asks the client for a ping before answering the call
#   stubborn    ignores SIGTERM and stdin's end after answering
# Every request line it reads is appended to $FAKE_LOG when set.

mode=$1

# readmsg: the next line from the client, in $line (and $FAKE_LOG).
readmsg() {
	IFS= read -r line || exit 0
	[ -n "${FAKE_LOG:-}" ] && printf '%s\n' "$line" >>"$FAKE_LOG"
	return 0
}

# idof: the numeric id of $line.
idof() {
	printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p'
}

# answer RESULT: a result for the request read last, whose id is in $id.
answer() {
	printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$1"
}

version=2025-06-18
[ "$mode" = badversion ] && version=1999-01-01

readmsg
id=$(idof)
case "$mode" in
exitinit)
	echo "fake: giving up before initialize" >&2
	exit 3 ;;
initerror)
	printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unsupported client"}}\n' "$id"
	readmsg
	exit 0 ;;
esac
answer '{"protocolVersion":"'$version'","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0.1"}}'
readmsg		# notifications/initialized
readmsg		# tools/call
id=$(idof)
case "$mode" in
structured)
	echo "fake: working on it" >&2
	printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"half way"}}'
	answer '{"content":[{"type":"text","text":"see structuredContent"}],"structuredContent":{"request":'"$line"'}}' ;;
text)
	answer '{"content":[{"type":"text","text":"plain words"}]}' ;;
jsontext)
	answer '{"content":[{"type":"text","text":"{\"n\": 3, \"ok\": true}"}]}' ;;
env)
	answer '{"content":[],"structuredContent":{"step":"'"$SLUICE_STEP"'","attempt":"'"$SLUICE_ATTEMPT"'","x":"'"${FAKE_X:-}"'","wf":"'"$SLUICE_WORKFLOW_ID"'"}}' ;;
iserror)
	answer '{"content":[{"type":"text","text":"disk full"},{"type":"text","text":"on /var"}],"isError":true}' ;;
rpcerror)
	printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unknown tool: nope"}}\n' "$id" ;;
flaky)
	if [ "$SLUICE_ATTEMPT" = 1 ]; then
		answer '{"content":[{"type":"text","text":"not yet"}],"isError":true}'
	else
		answer '{"content":[{"type":"text","text":"attempt '"$SLUICE_ATTEMPT"'"}]}'
	fi ;;
malformed)
	echo 'this is not JSON-RPC' ;;
badid)
	printf '%s\n' '{"jsonrpc":"2.0","id":99,"result":{}}' ;;
exitcall)
	echo "fake: crashing mid-call" >&2
	exit 4 ;;
progress)
	tok=$(printf '%s\n' "$line" |
	    sed -n 's/.*"progressToken":"\([^"]*\)".*/\1/p')
	printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"%s","progress":1,"total":4,"message":"first of four"}}\n' "$tok"
	printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"%s","progress":3,"total":4}}\n' "$tok"
	printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"not-ours","progress":99,"total":100,"message":"no"}}\n'
	answer '{"content":[{"type":"text","text":"progressed"}]}' ;;
dribble)
	printf '{"jsonrpc":"2.0",'
	sleep 0.1
	printf '"id":%s,"result":{"content":[{"type":"text",' "$id"
	sleep 0.1
	printf '"text":"in pieces"}]}}\r\n' ;;
slowfirst)
	if [ "$SLUICE_ATTEMPT" != 1 ]; then
		answer '{"content":[{"type":"text","text":"attempt '"$SLUICE_ATTEMPT"'"}]}'
	else
		sleep 1000 &
		[ -n "${FAKE_PIDS:-}" ] && echo "$$ $!" >"$FAKE_PIDS"
		wait
	fi ;;
slow)
	sleep 1000 &
	[ -n "${FAKE_PIDS:-}" ] && echo "$$ $!" >"$FAKE_PIDS"
	wait
	exit 0 ;;
badversion|initerror)
	;;
ping)
	printf '%s\n' '{"jsonrpc":"2.0","id":"p1","method":"ping"}'
	readmsg		# the client's answer to the ping
	case "$line" in
	*'"id":"p1"'*'"result"'*|*'"result"'*'"id":"p1"'*)
		answer '{"content":[{"type":"text","text":"pong seen"}]}' ;;
	*)
		answer '{"content":[{"type":"text","text":"no pong"}],"isError":true}' ;;
	esac ;;
stubborn)
	trap '' TERM
	[ -n "${FAKE_PIDS:-}" ] && echo "$$" >"$FAKE_PIDS"
	answer '{"content":[{"type":"text","text":"done, but staying"}]}'
	while :; do sleep 1; done ;;
esac
# Wait for stdin to end, as a well-behaved server does.
while IFS= read -r line; do :; done
exit 0
