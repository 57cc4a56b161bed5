#!/bin/sh
# chat.sh: share/notify/chat.sh posts {"text": ...} to a Slack/Mattermost
# incoming webhook; a real HTTP listener on 127.0.0.1 receives it, and
# whatever the message holds (quotes, backslashes, escapes, UTF-8), the
# body is one JSON object whose text is the message.
. "$TOP_SRCDIR/tests/lib.sh"

chat="$TOP_SRCDIR/share/notify/chat.sh"
sh -n "$chat"
ok $? "chat.sh is valid sh"
[ -x "$chat" ]
ok $? "chat.sh is executable"
command -v curl >/dev/null 2>&1 || skip_all "no curl(1) to post with"
command -v python3 >/dev/null 2>&1 ||
    skip_all "no python3 for the HTTP listener on 127.0.0.1"

# A listener that keeps each POST body in body.N and answers 200.
cat >"$T_DIR/listen.py" <<'PY'
import http.server, sys
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global n
        data = self.rfile.read(int(self.headers["Content-Length"]))
        n += 1
        with open("%s/body.%d" % (sys.argv[1], n), "wb") as f:
            f.write(data)
        with open("%s/type.%d" % (sys.argv[1], n), "w") as f:
            f.write(self.headers["Content-Type"])
        self.send_response(200 if b"fail" not in data else 500)
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + "/port.tmp", "w") as f:
    f.write(str(s.server_port))
import os
os.rename(sys.argv[1] + "/port.tmp", sys.argv[1] + "/port")
s.serve_forever()
PY
python3 "$T_DIR/listen.py" "$T_DIR" &
lpid=$!
trap 'kill "$lpid" 2>/dev/null; rm -rf "$T_DIR"' EXIT
i=0
while [ ! -f "$T_DIR/port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -f "$T_DIR/port" ] || skip_all "the HTTP listener did not start"
url="http://127.0.0.1:$(cat "$T_DIR/port")/hooks/x"

msg=$(printf 'workflow 7 ("deploy\\prod"): gate ok is waiting: \033]0;x\007 ship\tit? é')
SLUICE_MESSAGE=$msg SLUICE_CONSOLE="sluice --db /srv/s.db show 7" \
    SLUICE_EVENT=gate_waiting "$chat" "$url"
ok $? "chat.sh posts"
body=$(cat "$T_DIR/body.1")
is "$(json_query "$body" "SELECT json_valid(j) FROM d")" 1 \
    "the body is valid JSON"
is "$(json_query "$body" "SELECT group_concat(key) FROM d, json_each(d.j)")" \
    text "it is {\"text\": ...}"
is "$(json_query "$body" "SELECT json_extract(j, '\$.text') FROM d")" \
    "$(printf 'sluice: %s\nsluice --db /srv/s.db show 7' "$msg")" \
    "the text is the message and the console command, byte for byte"
unlike "$body" "$(printf '\033')" "no raw escape character in the body"
is "$(cat "$T_DIR/type.1")" application/json "sent as application/json"

SLUICE_MESSAGE="x" NOTIFY_CHAT_URL="$url" "$chat"
ok $? "the URL may come from NOTIFY_CHAT_URL"
is "$(json_query "$(cat "$T_DIR/body.2")" "SELECT json_extract(j, '\$.text') FROM d")" \
    "sluice: x" "no console command: the message alone"

SLUICE_MESSAGE="fail" "$chat" "$url" 2>"$T_DIR/err"
ok $((! $?)) "an HTTP error makes it exit non-zero (sluice tries again)"
env -u NOTIFY_CHAT_URL "$chat" 2>"$T_DIR/err"
is "$?" 2 "no URL: exit 2"
like "$(cat "$T_DIR/err")" "chat.sh: no URL" "and says so"
"$chat" "file:///etc/passwd" 2>/dev/null
ok $((! $?)) "only http and https"

kill "$lpid"
done_testing
