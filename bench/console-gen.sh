#!/bin/sh
#
# console-gen.sh DB [WORKFLOWS] [STEPS_PER_WF]: make a sluice database for
# the console benchmark, as a long-lived site would have it.  sluice itself
# creates DB (its schema) and saves six templates of one flow; the sqlite3
# CLI then writes WORKFLOWS workflows (default 100000) of up to
# STEPS_PER_WF step rows each (default 10) in one transaction, from
# recursive CTEs, shaped like the rows the engine writes:
#
#   the flow: prepare (echo), check (shell, 2 attempts), approve (a gate;
#   rejection fails the run), drain (echo, fans out to STEPS_PER_WF - 7
#   branches zone_a...), one shell step per branch joining at verify
#   (shell, 2 attempts), undrain (noop), report (echo);
#
#   the mix: 90% completed, 6% failed (at check or at verify, two
#   attempt rows each, or by a rejected gate), 4% cancelled at the gate;
#   and in flight, whatever WORKFLOWS is (it is the history that grows),
#   100 scheduled (no steps yet), 200 waiting at the gate and 100 running
#   (the last branch still running, on_interrupt "ask"), picked among
#   the newest 2000 (1/8, 1/4 and 1/8 of WORKFLOWS below 800);
#
#   plus a log row or two per shell step, an approvals row per decision
#   and audit rows (start, approve, reject, cancel) in time order.
#
# Workflows are about 90 s apart, the newest an hour old; ids, names,
# users and durations come from a hash of the workflow id, so a database
# is the same each time but for the clock.  DB must not exist.  $SLUICE
# names the binary (else ./sluice, else sluice on $PATH).  Prints one line:
#     console-gen: DB: W workflows, N steps, A audit rows, L log rows,
#     M MiB in S s

set -eu

usage() {
	echo "usage: $0 DB [WORKFLOWS] [STEPS_PER_WF]" >&2
	exit 2
}

[ $# -ge 1 ] && [ $# -le 3 ] || usage
db=$1
wfs=${2:-100000}
spw=${3:-10}
case $wfs$spw in *[!0-9]*|'') usage ;; esac
if [ "$wfs" -lt 1 ] || [ "$spw" -lt 8 ] || [ "$spw" -gt 1000 ]; then
	echo "$0: WORKFLOWS >= 1 and 8 <= STEPS_PER_WF <= 1000" >&2
	exit 2
fi
if [ -e "$db" ]; then
	echo "$0: $db exists: give a new path" >&2
	exit 2
fi
. "$(dirname "$0")/sluice-bin.sh"
command -v sqlite3 >/dev/null ||
    { echo "$0: the sqlite3 command is needed" >&2; exit 2; }

t0=$(date +%s%N)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sluice-gen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
branches=$((spw - 7))
# What is in flight does not grow with the history: 100 scheduled, 200
# waiting at the gate and 100 running among the newest 2000, fewer when
# that would be over half the workflows.
nsched=100 nwait=200 nrun=100
if [ $((wfs / 2)) -lt 400 ]; then
	nsched=$((wfs / 8)) nwait=$((wfs / 4)) nrun=$((wfs / 8))
fi

# zone B: the key of branch B (0-based) of the fan-out.
zone() {
	if [ "$branches" -le 26 ]; then
		printf 'zone_%s' "$(printf '%s' abcdefghijklmnopqrstuvwxyz |
		    cut -c $(($1 + 1)))"
	else
		printf 'zone_%03d' $(($1 + 1))
	fi
}

# template DESCRIPTION: the template document every name shares.
template() {
	cat <<EOF
{
  "description": "$1",
  "inputs": {
    "service": {"description": "Service to roll out", "required": true},
    "version": {"description": "Release to roll out", "required": true}
  },
  "flow": {
    "start": {
      "name": "prepare",
      "tool": "echo",
      "args": {"service": "{{input.service}}", "version": "{{input.version}}"},
      "next": "check"
    },
    "check": {
      "description": "Health of the fleet before the change.",
      "shell": "echo '{\"healthy\": true, \"latency_ms\": 12}'",
      "args": {"service": "{{input.service}}"},
      "retry": {"max_attempts": 2, "backoff": ["5s"]},
      "next": "approve"
    },
    "approve": {
      "gate": {
        "message": "Roll out {{input.service}} {{input.version}} to production?"
      },
      "branch": [{"if": "result == \"approved\"", "then": "drain"}]
    },
    "drain": {
      "tool": "echo",
      "args": {"service": "{{input.service}}"},
      "parallel": [$(i=0; while [ "$i" -lt "$branches" ]; do
		[ "$i" -gt 0 ] && printf ', '
		printf '"%s"' "$(zone "$i")"
		i=$((i + 1))
	done)]
    },
EOF
	i=0
	while [ "$i" -lt "$branches" ]; do
		z=$(zone "$i")
		cat <<EOF
    "$z": {
      "shell": "echo \"deploying \$SLUICE_ARG_SERVICE \$SLUICE_ARG_VERSION to \$SLUICE_ARG_ZONE\" >&2; printf '{\"zone\": \"%s\", \"deployed\": \"%s\"}\\\\n' \"\$SLUICE_ARG_ZONE\" \"\$SLUICE_ARG_VERSION\"",
      "args": {"service": "{{input.service}}",
        "version": "{{input.version}}", "zone": "${z#zone_}"},
      "on_interrupt": "ask",
      "join": "verify"
    },
EOF
		i=$((i + 1))
	done
	cat <<'EOF'
    "verify": {
      "description": "Health of the fleet after the change.",
      "shell": "printf '{\"healthy\": true, \"version\": \"%s\"}\\n' \"$SLUICE_ARG_VERSION\"",
      "args": {"service": "{{input.service}}", "version": "{{input.version}}"},
      "retry": {"max_attempts": 2, "backoff": ["5s"]},
      "next": "undrain"
    },
    "undrain": {"tool": "noop", "next": "report"},
    "report": {
      "tool": "echo",
      "args": {"message": "{{input.service}} {{input.version}} rolled out"},
      "done": true
    }
  }
}
EOF
}

"$SLUICE" init "$db" >/dev/null
names="deploy-web deploy-api deploy-worker restart-cache rotate-certs
resize-pool"
for n in $names; do
	template "Roll $n out zone by zone, after an approval." >"$tmp/$n.json"
	"$SLUICE" --db "$db" template save "$n" "$tmp/$n.json" >/dev/null
done

# The zone key of branch b, in SQL.
if [ "$branches" -le 26 ]; then
	zsql="char(97 + q.b)"
else
	zsql="printf('%03d', q.b + 1)"
fi
now=$(date +%s%3N)

sqlite3 "$db" >"$tmp/out" <<EOF
PRAGMA journal_mode = DELETE;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -262144;
PRAGMA temp_store = MEMORY;
BEGIN;

-- One row per workflow: its class, who, what and its durations (ms),
-- from h, a 32-bit hash of its id (xor-shift-multiply rounds; SQL has no
-- xor: a ^ b = (a | b) - (a & b)).
CREATE TEMP TABLE plan AS
WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n
    WHERE id < $wfs),
m1 AS (SELECT id, (id * 2654435761) % 4294967296 AS x FROM n),
m2 AS (SELECT id, ((x | (x >> 16)) - (x & (x >> 16))) * 73244475
    % 4294967296 AS x FROM m1),
m3 AS (SELECT id, ((x | (x >> 16)) - (x & (x >> 16))) * 73244475
    % 4294967296 AS x FROM m2),
h AS (SELECT id, (x | (x >> 16)) - (x & (x >> 16)) AS h FROM m3),
rk AS (SELECT id, row_number() OVER (ORDER BY h, id) AS rk FROM h
    WHERE id > $wfs - 2000),
c AS (SELECT h.id, h, CASE
    WHEN rk <= $nsched THEN 'scheduled'
    WHEN rk <= $nsched + $nwait THEN 'waiting'
    WHEN rk <= $nsched + $nwait + $nrun THEN 'running'
    WHEN h % 100 < 90 THEN 'completed'
    WHEN h % 100 < 92 THEN 'failed_check'
    WHEN h % 100 < 94 THEN 'rejected'
    WHEN h % 100 < 96 THEN 'failed_verify'
    ELSE 'cancelled' END AS cls,
    (h / 101) % 6 AS ni, (h / 607) % 5 AS ui,
    CASE WHEN (h / 607) % 5 = 4 THEN (h / 3001) % 4
	ELSE ((h / 607) % 5 + 1 + (h / 3001) % 3) % 4 END AS aui,
    ($now - 3600000 - ($wfs - h.id) * 90000 - h % 60000) AS t
    FROM h LEFT JOIN rk ON rk.id = h.id)
SELECT id, h, cls, t,
    json_extract('["deploy-web","deploy-api","deploy-worker",
	"restart-cache","rotate-certs","resize-pool"]', '\$[' || ni || ']')
	AS name,
    json_extract('["web","api","worker","cache","edge","pool"]',
	'\$[' || ni || ']') AS svc,
    '2.' || (h / 7 % 20) || '.' || (h / 11 % 10) AS ver,
    json_extract('["alice","bob","carol","dmitri","deploy-bot"]',
	'\$[' || ui || ']') AS who,
    1001 + ui AS uid,
    CASE WHEN ui = 4 THEN NULL ELSE 'pts/' || (h % 9) END AS tty,
    CASE WHEN ui = 4 THEN 'ci-runner' ELSE 'ops-' || (1 + h % 3) END
	AS host,
    json_extract('["alice","bob","carol","dmitri"]', '\$[' || aui || ']')
	AS approver, 1001 + aui AS auid,
    800 + h % 2200 AS dc,
    60000 + (h / 7) % 1740000 AS gw,
    70000 + (h / 17) % 20000 AS zl,
    1000 + (h / 19) % 4000 AS dv
FROM c;

-- When each stage ends, from the durations.
CREATE TEMP TABLE p AS
SELECT *, ($now + 600000 + h % 604800000) AS start_at,
    t + 1 + dc AS e2, t + 1 + dc + gw AS e3, t + 2 + dc + gw AS e4,
    t + 2 + dc + gw + zl + dv AS ev,
    (id - 1) * $spw AS base,
    (SELECT flow_json FROM workflow_templates wt WHERE wt.name = plan.name)
	AS flow,
    json_object('service', svc, 'version', ver) AS input,
    CASE h % 4 WHEN 0 THEN 'lgtm' WHEN 1 THEN 'go ahead'
	WHEN 2 THEN 'staging looks good' ELSE NULL END AS ok_comment,
    CASE h % 3 WHEN 0 THEN 'not during the freeze'
	WHEN 1 THEN 'error budget spent' ELSE 'wrong version' END
	AS no_comment
FROM plan ORDER BY id;

INSERT INTO workflows (id, updated_at, name, flow_json, input_json,
    status, created_by, completed_at, cancelled_at, created_at, started_at,
    start_at, template_name, template_version, error, paused)
SELECT id,
    CASE cls WHEN 'scheduled' THEN t WHEN 'waiting' THEN e2
	WHEN 'running' THEN e4 WHEN 'completed' THEN ev + 2
	WHEN 'failed_check' THEN e2 + 5000 + dc WHEN 'failed_verify'
	THEN ev + 5000 + dv ELSE e3 END,
    name, flow, input,
    CASE cls WHEN 'waiting' THEN 'running' WHEN 'rejected' THEN 'failed'
	WHEN 'failed_check' THEN 'failed' WHEN 'failed_verify' THEN 'failed'
	ELSE cls END,
    who,
    CASE cls WHEN 'completed' THEN ev + 2 WHEN 'rejected' THEN e3
	WHEN 'failed_check' THEN e2 + 5000 + dc WHEN 'failed_verify'
	THEN ev + 5000 + dv END,
    CASE cls WHEN 'cancelled' THEN e3 END,
    t, CASE WHEN cls != 'scheduled' THEN t END,
    CASE WHEN cls = 'scheduled' THEN start_at END,
    name, 1,
    CASE cls WHEN 'rejected'
	THEN 'step approve: no branch matched its result "rejected"'
	WHEN 'failed_check'
	THEN 'step check failed after 2 attempts: exit status 1'
	WHEN 'failed_verify'
	THEN 'step verify failed after 2 attempts: exit status 1' END,
    0
FROM p;

-- Step rows: each workflow's slots 1..$spw, ids base + slot, those its
-- class reached.  The slot after a failed check or verify holds its
-- second attempt.
CREATE TEMP TABLE r AS
WITH RECURSIVE pos(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM pos
    WHERE k < $spw)
SELECT p.id, p.h, p.cls, p.t, p.svc, p.ver, p.approver, p.ok_comment,
    p.no_comment, p.dc, p.gw, p.zl, p.dv, p.e2, p.e3, p.e4, p.ev,
    p.base, pos.k, p.base + pos.k AS sid,
    CASE WHEN pos.k = 1 THEN 'prepare' WHEN pos.k = 2 THEN 'check'
	WHEN pos.k = 3 AND p.cls = 'failed_check' THEN 'check2'
	WHEN pos.k = 3 THEN 'approve' WHEN pos.k = 4 THEN 'drain'
	WHEN pos.k < $branches + 5 THEN 'zone'
	WHEN pos.k = $branches + 5 THEN 'verify'
	WHEN pos.k = $branches + 6 AND p.cls = 'failed_verify'
	THEN 'verify2'
	WHEN pos.k = $branches + 6 THEN 'undrain' ELSE 'report' END AS role,
    pos.k - 5 AS b
FROM p, pos
WHERE CASE p.cls WHEN 'scheduled' THEN 0 WHEN 'completed' THEN 1
    WHEN 'running' THEN pos.k <= $branches + 4
    WHEN 'failed_verify' THEN pos.k <= $branches + 6
    ELSE pos.k <= 3 END
ORDER BY p.id, pos.k;

CREATE TEMP TABLE s AS
SELECT q.*,
    CASE role WHEN 'prepare' THEN t WHEN 'check' THEN t + 1
	WHEN 'check2' THEN e2 WHEN 'approve' THEN e2 WHEN 'drain' THEN e3
	WHEN 'zone' THEN e4 WHEN 'verify' THEN e4 + zl
	WHEN 'verify2' THEN ev WHEN 'undrain' THEN ev ELSE ev + 1 END
	AS created,
    CASE role WHEN 'prepare' THEN t + 1 WHEN 'check' THEN e2
	WHEN 'check2' THEN e2 + 5000 + dc
	WHEN 'approve' THEN (CASE WHEN cls = 'waiting' THEN NULL ELSE e3 END)
	WHEN 'drain' THEN e4
	WHEN 'zone' THEN (CASE WHEN cls = 'running' AND b = $branches - 1
	    THEN NULL WHEN b = $branches - 1 THEN e4 + zl
	    ELSE e4 + 20000 + (h / 13 + b * 7919) % 50000 END)
	WHEN 'verify' THEN ev WHEN 'verify2' THEN ev + 5000 + dv
	WHEN 'undrain' THEN ev + 1 ELSE ev + 2 END AS ended,
    CASE role WHEN 'check' THEN cls = 'failed_check'
	WHEN 'check2' THEN 1 WHEN 'verify' THEN cls = 'failed_verify'
	WHEN 'verify2' THEN 1 ELSE 0 END AS failed,
    CASE role WHEN 'prepare' THEN json_object('service', svc, 'version', ver)
	WHEN 'check' THEN json_object('service', svc)
	WHEN 'check2' THEN json_object('service', svc)
	WHEN 'approve' THEN '{}'
	WHEN 'drain' THEN json_object('service', svc)
	WHEN 'zone' THEN json_object('service', svc, 'version', ver,
	    'zone', $zsql)
	WHEN 'verify' THEN json_object('service', svc, 'version', ver)
	WHEN 'verify2' THEN json_object('service', svc, 'version', ver)
	WHEN 'undrain' THEN '{}'
	ELSE json_object('message', svc || ' ' || ver || ' rolled out') END
	AS args
FROM r AS q ORDER BY sid;

INSERT INTO workflow_steps (id, updated_at, workflow_id, name, tool,
    args_json, result_json, status, attempt, ready_at, started_at,
    completed_at, step_key, kind, gate_json, error, exit_code, visit,
    parent_id, created_at, pid, pgid, proc_start, host, timeout_at,
    log_bytes, fanout_id, branch_no, branch_end)
SELECT sid,
    coalesce(ended, CASE WHEN role = 'approve' THEN e2 ELSE created END),
    id,
    CASE role WHEN 'check2' THEN 'check' WHEN 'verify2' THEN 'verify'
	WHEN 'zone' THEN 'zone_' || json_extract(args, '\$.zone')
	ELSE role END,
    CASE WHEN role IN ('prepare', 'drain', 'report') THEN 'echo'
	WHEN role = 'undrain' THEN 'noop' WHEN role = 'approve' THEN NULL
	ELSE 'shell' END,
    args,
    CASE WHEN role IN ('prepare', 'drain', 'report') THEN args
	WHEN role = 'undrain' THEN 'null'
	WHEN role = 'approve' THEN (CASE cls WHEN 'waiting' THEN NULL
	    WHEN 'cancelled' THEN NULL WHEN 'rejected' THEN '"rejected"'
	    ELSE '"approved"' END)
	WHEN role IN ('check', 'check2') AND failed
	THEN json_object('healthy', json('false'), 'failing',
	    json_array(svc || '-' || (1 + h % 7)))
	WHEN role IN ('check', 'check2')
	THEN json_object('healthy', json('true'), 'latency_ms', 3 + dc % 97)
	WHEN role = 'zone' AND ended IS NULL THEN NULL
	WHEN role = 'zone' THEN json_object('zone',
	    json_extract(args, '\$.zone'), 'deployed', ver)
	WHEN failed THEN json_object('healthy', json('false'), 'error_rate',
	    0.05 + (h % 50) / 1000.0)
	ELSE json_object('healthy', json('true'), 'version', ver) END,
    CASE WHEN failed THEN 'failed' WHEN ended IS NOT NULL
	OR cls = 'cancelled' THEN (CASE WHEN role = 'approve'
	AND cls = 'cancelled' THEN 'cancelled' ELSE 'done' END)
	WHEN role = 'approve' THEN 'waiting' ELSE 'running' END,
    CASE WHEN role IN ('check2', 'verify2') THEN 2 ELSE 1 END,
    CASE WHEN role IN ('check2', 'verify2') THEN created + 5000
	ELSE created END,
    started,
    CASE WHEN role = 'approve' AND cls = 'cancelled' THEN e3
	ELSE ended END,
    CASE role WHEN 'prepare' THEN 'start' WHEN 'check2' THEN 'check'
	WHEN 'verify2' THEN 'verify'
	WHEN 'zone' THEN 'zone_' || json_extract(args, '\$.zone')
	ELSE role END,
    CASE WHEN role IN ('prepare', 'drain', 'report', 'undrain')
	THEN 'tool' WHEN role = 'approve' THEN 'gate' ELSE 'shell' END,
    CASE WHEN role = 'approve' THEN json_object('message',
	'Roll out ' || svc || ' ' || ver || ' to production?',
	'approvers', json('[]'), 'quorum', 1) END,
    CASE WHEN failed THEN 'exit status 1'
	WHEN role = 'approve' AND cls = 'rejected'
	THEN 'rejected by ' || approver || ': ' || no_comment
	WHEN role = 'approve' AND cls = 'cancelled' THEN 'cancelled' END,
    CASE WHEN role IN ('prepare', 'drain', 'report', 'undrain', 'approve')
	OR ended IS NULL THEN NULL WHEN failed THEN 1 ELSE 0 END,
    1,
    CASE role WHEN 'prepare' THEN NULL WHEN 'check' THEN base + 1
	WHEN 'check2' THEN base + 2 WHEN 'approve' THEN base + 2
	WHEN 'drain' THEN base + 3 WHEN 'zone' THEN base + 4
	WHEN 'verify' THEN base + 4 ELSE sid - 1 END,
    created,
    CASE WHEN role IN ('prepare', 'drain', 'report', 'undrain', 'approve')
	THEN NULL WHEN ended IS NULL THEN 4194304 + id
	ELSE 300 + (sid * 7919) % 32000 END,
    CASE WHEN role IN ('prepare', 'drain', 'report', 'undrain', 'approve')
	THEN NULL WHEN ended IS NULL THEN 4194304 + id
	ELSE 300 + (sid * 7919) % 32000 END,
    CASE WHEN role IN ('prepare', 'drain', 'report', 'undrain', 'approve')
	THEN NULL ELSE started - h % 700 END,
    NULL,
    CASE WHEN role IN ('prepare', 'drain', 'report', 'undrain', 'approve')
	THEN NULL WHEN role IN ('check2', 'verify2') THEN created + 125000
	ELSE created + 120000 END,
    0,
    CASE WHEN role = 'zone' THEN base + 4 END,
    CASE WHEN role = 'zone' THEN b END,
    CASE WHEN role = 'zone' AND ended IS NOT NULL THEN 'join' END
FROM (SELECT *, CASE WHEN role IN ('check2', 'verify2') THEN created + 5000
	    WHEN role = 'approve' THEN (CASE WHEN cls = 'waiting' THEN NULL
	        ELSE e3 END)
	    ELSE created END AS started FROM s)
ORDER BY sid;

-- The output of the shell steps: what their commands print.
INSERT INTO step_logs (step_id, at, stream, data)
SELECT id, at, stream, CAST(data AS BLOB) FROM (
    SELECT w.id, w.completed_at AS at, 'err' AS stream,
	'deploying ' || json_extract(w.args_json, '\$.service') || ' ' ||
	json_extract(w.args_json, '\$.version') || ' to ' ||
	json_extract(w.args_json, '\$.zone') || char(10) AS data, 1 AS o
    FROM workflow_steps w WHERE w.fanout_id IS NOT NULL
	AND w.completed_at IS NOT NULL
    UNION ALL
    SELECT w.id, w.completed_at, 'err', 'unhealthy: ' ||
	w.result_json || char(10), 1
    FROM workflow_steps w WHERE w.kind = 'shell' AND w.status = 'failed'
    UNION ALL
    SELECT w.id, w.completed_at, 'out', w.result_json || char(10), 2
    FROM workflow_steps w WHERE w.kind = 'shell'
	AND w.completed_at IS NOT NULL)
ORDER BY id, o;
UPDATE workflow_steps SET log_bytes = (SELECT sum(length(data))
    FROM step_logs l WHERE l.step_id = workflow_steps.id)
    WHERE kind = 'shell' AND completed_at IS NOT NULL;

INSERT INTO approvals (step_id, workflow_id, who, decision, comment, at)
SELECT base + 3, id, approver,
    CASE cls WHEN 'rejected' THEN 'reject' ELSE 'approve' END,
    CASE cls WHEN 'rejected' THEN no_comment ELSE ok_comment END, e3
FROM p WHERE cls IN ('completed', 'running', 'failed_verify', 'rejected')
ORDER BY e3;

-- The audit trail in time order: starts, decisions, cancels.
INSERT INTO audit (at, who, uid, tty, host, action, target, workflow_id,
    step_id, comment, detail_json)
SELECT at, who, uid, tty, host, action, target, wf, step, comment, detail
FROM (
    SELECT t AS at, who, uid, tty, host,
	'start' AS action, 'workflow ' || id || ' ' || name AS target,
	id AS wf, NULL AS step, NULL AS comment,
	json_object('name', name, 'input', json(input), 'template', name,
	    'version', 1) AS detail
    FROM p
    UNION ALL
    SELECT e3, approver, auid, 'pts/' || (h % 5), 'ops-1',
	CASE cls WHEN 'rejected' THEN 'reject' ELSE 'approve' END,
	'step ' || (base + 3) || ' approve', id, base + 3,
	CASE cls WHEN 'rejected' THEN no_comment ELSE ok_comment END, NULL
    FROM p WHERE cls IN ('completed', 'running', 'failed_verify',
	'rejected')
    UNION ALL
    SELECT e3, approver, auid, 'pts/' || (h % 5), 'ops-1', 'cancel',
	'workflow ' || id || ' ' || name, id, NULL, 'superseded', NULL
    FROM p WHERE cls = 'cancelled')
ORDER BY at;

COMMIT;
PRAGMA journal_mode = WAL;
SELECT (SELECT count(*) FROM workflows), (SELECT count(*) FROM
    workflow_steps), (SELECT count(*) FROM audit), (SELECT count(*) FROM
    step_logs);
EOF
set -- $(tr '|' ' ' <"$tmp/out" | tail -n 1)
t1=$(date +%s%N)
mib=$(du -m "$db" | cut -f 1)
secs=$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", ns / 1e9 }')
echo "console-gen: $db: $1 workflows, $2 steps, $3 audit rows, $4 log rows," \
    "$mib MiB in $secs s"
