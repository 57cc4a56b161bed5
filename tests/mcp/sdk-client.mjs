// tests/mcp/sdk-client.mjs: sluice mcp driven by the official MCP
// TypeScript SDK's client, run by tests/mcp/server.sh (which installs
// the SDK, starts an engine and checks the database afterwards).  It
// prints one line per check, "PASS what" or "FAIL what: detail", and
// "IDS ..." with the ids the shell checks in the database.
//
// The SDK checks every answer against the protocol's schemas and each
// tool's structuredContent against its outputSchema; ajv (which the SDK
// depends on) checks that every schema sluice lists is a valid schema.

import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { check, connect, ajv, outputValidators, call, good, bad, until,
    close, lines } from './sdk-lib.mjs';

const env = process.env;
let client = null;

try {
	const c = await connect('sluice-test');
	client = c.client;
	check(c.agreed.version === LATEST_PROTOCOL_VERSION,
	    `initialize agrees on the SDK's latest revision ${LATEST_PROTOCOL_VERSION}`,
	    c.agreed.version);
	check(client.getServerVersion()?.name === 'sluice',
	    'the server names itself sluice', JSON.stringify(client.getServerVersion()));
	check(client.getServerCapabilities()?.tools !== undefined,
	    'the server offers tools', JSON.stringify(client.getServerCapabilities()));
	await client.ping();
	check(true, 'ping');

	// tools/list: every tool, each schema a valid JSON Schema.
	const { tools } = await client.listTools();
	const want = ['flow_check', 'gate_decide', 'gate_list', 'step_complete',
	    'step_fail', 'step_log', 'template_delete', 'template_get',
	    'template_list', 'template_save', 'workflow_cancel',
	    'workflow_create', 'workflow_get', 'workflow_list',
	    'workflow_step_ready', 'workflow_template_delete',
	    'workflow_template_list', 'workflow_template_save'];
	const names = tools.map((t) => t.name).sort();
	check(JSON.stringify(names) === JSON.stringify(want),
	    'tools/list lists every tool', names.join(' '));
	for (const t of tools) {
		const okIn = ajv.validateSchema(t.inputSchema) &&
		    t.inputSchema.type === 'object';
		const okOut = ajv.validateSchema(t.outputSchema) &&
		    t.outputSchema.type === 'object';
		check(okIn, `${t.name}: inputSchema is a valid object schema`,
		    ajv.errorsText());
		check(okOut, `${t.name}: outputSchema is a valid object schema`,
		    ajv.errorsText());
		try {
			ajv.compile(t.inputSchema);
			outputValidators[t.name] = ajv.compile(t.outputSchema);
			check(true, `${t.name}: both schemas compile`);
		} catch (e) {
			check(false, `${t.name}: both schemas compile`, e.message);
		}
		check(typeof t.description === 'string' && t.description.length > 20,
		    `${t.name}: has a description`);
	}

	// flow_check.
	let r = await good('flow_check', { flow: { start: { tool: 'noop' } } },
	    'flow_check: a good flow');
	check(r?.valid === true, 'flow_check: valid true', JSON.stringify(r));
	r = await good('flow_check', { flow: { start: { tool: 'nope' } } },
	    'flow_check: a bad flow is an answer');
	check(r?.valid === false && r.problems[0].path === '$.start.tool',
	    'flow_check: its problem with its path', JSON.stringify(r));

	// Templates.
	r = await good('template_save', { name: 'sdk-tmpl', document: {
	    description: 'from the SDK test',
	    inputs: { who: { required: true } },
	    flow: { start: { tool: 'echo', args: { hi: '{{input.who}}' } } } } },
	    'template_save');
	check(r?.version === 1, 'template_save: version 1', JSON.stringify(r));
	r = await good('template_list', {}, 'template_list');
	check(r?.templates.some((t) => t.name === 'sdk-tmpl'),
	    'template_list: the saved template is there', JSON.stringify(r));
	r = await good('template_get', { name: 'sdk-tmpl' }, 'template_get');
	check(r?.name === 'sdk-tmpl' && r.version === 1,
	    'template_get: name and version', JSON.stringify(r));
	await bad('workflow_create', { template: 'sdk-tmpl' },
	    'workflow_create: a missing required input is refused', 'who');

	// Runs.
	const fromTmpl = await good('workflow_create', { template: 'sdk-tmpl',
	    input: { who: 'sdk' } }, 'workflow_create from a template');
	const people = await good('workflow_create', { flow: env.PEOPLE_FLOW },
	    'workflow_create from a flow file (a gate for people)');
	const agents = await good('workflow_create', { flow: env.AGENTS_FLOW },
	    'workflow_create from a flow file (a gate for agents)');
	const later = await good('workflow_create', { flow: { start:
	    { tool: 'noop' } }, name: 'later', at: 'in 30 minutes' },
	    'workflow_create from a flow object, --at');
	check(later?.status === 'scheduled', 'a later run is scheduled',
	    JSON.stringify(later));
	const w1 = await good('workflow_create', { flow: env.WAIT_FLOW },
	    'workflow_create: a wait step');
	const w2 = await good('workflow_create', { flow: env.WAIT_FLOW },
	    'workflow_create: another wait step');

	r = await good('workflow_list', { limit: 10 }, 'workflow_list');
	check(r?.workflows.some((w) => w.id === fromTmpl?.workflow_id),
	    'workflow_list: the new runs are there', JSON.stringify(r));

	// Gates: for people unless the gate says agents.
	const gates = await until('two gates wait', async () => {
		const g = await client.callTool({ name: 'gate_list', arguments: {} });
		const list = g.structuredContent?.gates ?? [];
		return list.length >= 2 ? list : null;
	});
	await good('gate_list', {}, 'gate_list');
	const gp = gates?.find((g) => g.workflow_id === people?.workflow_id);
	const ga = gates?.find((g) => g.workflow_id === agents?.workflow_id);
	check(gp?.created_via === 'mcp', 'gate_list: started by an agent',
	    JSON.stringify(gp));
	await bad('gate_decide', { step_id: gp?.step_id, decision: 'approve',
	    comment: 'an agent tries' },
	    'gate_decide: a gate for people refuses an agent', 'is for people');
	r = await good('gate_decide', { step_id: ga?.step_id,
	    decision: 'approve', comment: 'an agent may' },
	    'gate_decide: a gate that says agents takes the decision');
	check(r?.decision === 'approve', 'gate_decide: says what it decided');

	// Wait steps.
	const waiting = async (wf) => until(`run ${wf} waits`, async () => {
		const g = await client.callTool({ name: 'workflow_get',
		    arguments: { workflow_id: wf } });
		return g.structuredContent?.steps?.find((s) =>
		    s.status === 'waiting');
	});
	const s1 = await waiting(w1?.workflow_id);
	const s2 = await waiting(w2?.workflow_id);
	await good('step_complete', { step: s1?.id, result: { n: 7 } },
	    'step_complete');
	await good('step_fail', { step: `${w2?.workflow_id}:ext`,
	    message: 'it broke outside' }, 'step_fail (WORKFLOW:STEP)');
	check(s2 !== null, 'the second wait step waited');

	// A step's log and a run's detail.
	const done = await until('the template run completes', async () => {
		const g = await client.callTool({ name: 'workflow_get',
		    arguments: { workflow_id: agents?.workflow_id } });
		return g.structuredContent?.status === 'completed' ?
		    g.structuredContent : null;
	});
	r = await good('workflow_get', { workflow_id: agents?.workflow_id },
	    'workflow_get');
	check(r?.created_via === 'mcp' && r.steps.length >= 2,
	    'workflow_get: its steps, started via mcp', JSON.stringify(r));
	const shellStep = done?.steps?.find((s) => s.name === 'say');
	r = await good('step_log', { step_id: shellStep?.id }, 'step_log');
	check(r?.log.includes('said by a step'), 'step_log: the step output',
	    JSON.stringify(r));

	// Cancel, remove.
	r = await good('workflow_cancel', { workflow_id: later?.workflow_id,
	    comment: 'not needed' }, 'workflow_cancel');
	r = await good('template_delete', { name: 'sdk-tmpl' },
	    'template_delete');
	await bad('template_get', { name: 'sdk-tmpl' },
	    'template_get: a removed template is gone', 'sdk-tmpl');

	// Bad arguments.
	await bad('workflow_get', { workflow_id: 'seven' },
	    'bad arguments: a wrong type', 'arguments.workflow_id');
	await bad('workflow_get', {}, 'bad arguments: a missing argument',
	    'arguments.workflow_id: missing');
	await bad('gate_decide', { step_id: 1, decision: 'maybe' },
	    'bad arguments: outside the enum', 'expected one of');
	await bad('workflow_get', { workflow_id: 999999 },
	    'an unknown id: the CLI reason', 'no workflow 999999');
	try {
		await call('no_such_tool', {});
		check(false, 'an unknown tool is a protocol error', 'no error');
	} catch (e) {
		check(e.code === -32602, 'an unknown tool is a protocol error -32602',
		    `${e.code} ${e.message}`);
	}

	lines.push(`IDS ${people?.workflow_id} ${agents?.workflow_id} ` +
	    `${later?.workflow_id} ${gp?.step_id} ${ga?.step_id}`);
} catch (e) {
	check(false, 'the session', e.stack);
} finally {
	await close();
}
console.log(lines.join('\n'));
