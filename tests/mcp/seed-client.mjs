// tests/mcp/seed-client.mjs: an agent written for the reference engine's
// eight MCP tools (the seed's workflow_create, _list, _get, _cancel,
// _step_ready, _template_list, _template_save, _template_delete), with
// the seed's argument names and shapes, driven by the official MCP SDK
// against sluice mcp.  Run by tests/mcp/seed.sh, which checks the
// database afterwards; "IDS ..." carries the ids it needs.

import { check, connect, listTools, good, bad, call, until, close, lines }
    from './sdk-lib.mjs';

const env = process.env;
const SEED = ['workflow_cancel', 'workflow_create', 'workflow_get',
    'workflow_list', 'workflow_step_ready', 'workflow_template_delete',
    'workflow_template_list', 'workflow_template_save'];

// The seed's flows: "tool": null is its approval gate (for people); a
// sluice gate object with agents: true lets an agent approve.
const gateFlow = {
	start: { name: 'ask', gate: { message: 'go?', agents: true },
	    next: 'after' },
	after: { name: 'after', tool: 'echo', args: { who: '{{input.who}}' },
	    done: true },
};
const peopleFlow = {
	start: { name: 'ask', tool: null, next: 'after' },
	after: { name: 'after', tool: 'noop', done: true },
};
const waitFlow = {
	start: { name: 'ext', wait: true, next: 'then' },
	then: { name: 'then', tool: 'echo', args: { n: '{{steps.ext.result}}' },
	    done: true },
};

try {
	await connect('seed-agent');
	const tools = await listTools();
	const names = tools.map((t) => t.name);
	check(SEED.every((n) => names.includes(n)),
	    'tools/list has all eight of the seed\'s tools',
	    SEED.filter((n) => !names.includes(n)).join(' '));

	// Templates, the seed's way: flow_json and input_json as JSON text.
	let r = await good('workflow_template_save', { name: 'greet',
	    flow_json: gateFlow, input_json: null, description: null },
	    'workflow_template_save (objects, nulls)');
	check(r?.id === 'greet' && r.version === 1,
	    'workflow_template_save answers the id and version 1', JSON.stringify(r));
	r = await good('workflow_template_save', { name: 'greet',
	    flow_json: JSON.stringify(gateFlow),
	    input_json: JSON.stringify({ who: 'world' }),
	    description: 'ask, then greet' }, 'workflow_template_save (JSON text)');
	check(r?.version === 2, 'a second save is version 2', JSON.stringify(r));
	await bad('workflow_template_save', { name: 'broken',
	    flow_json: '{"start": ' }, 'workflow_template_save: bad JSON text',
	    'arguments.flow_json: not a JSON object');
	r = await good('workflow_template_list', {}, 'workflow_template_list');
	const tmpl = r?.templates?.find((t) => t.id === 'greet');
	check(tmpl?.description === 'ask, then greet' &&
	    tmpl?.inputs?.who?.default === 'world',
	    'workflow_template_list: the template with its id, description ' +
	    'and input_json as defaults', JSON.stringify(r));

	// workflow_create with the seed's arguments: name, flow, input
	// (maybe null), schedule (a phrase, or a Unix time in seconds).
	const now = await good('workflow_create', { name: 'now',
	    flow: gateFlow, input: { who: 'seed' } },
	    'workflow_create: name, flow, input');
	check(now?.id === now?.workflow_id && now?.id > 0,
	    'workflow_create answers the run\'s id', JSON.stringify(now));
	const nul = await good('workflow_create', { name: 'nul',
	    flow: waitFlow, input: null }, 'workflow_create: input null');
	const people = await good('workflow_create', { name: 'people',
	    flow: peopleFlow, input: null }, 'workflow_create: a gate for people');
	const phrase = await good('workflow_create', { name: 'phrase',
	    flow: gateFlow, input: null, schedule: 'tomorrow at 9am' },
	    'workflow_create: schedule as a phrase');
	check(phrase?.status === 'scheduled', 'a phrase schedules the run',
	    JSON.stringify(phrase));
	const unix = Math.floor(Date.now() / 1000) + 7200;
	const stamp = await good('workflow_create', { name: 'stamp',
	    flow: gateFlow, input: null, schedule: unix },
	    'workflow_create: schedule as a Unix time');
	check(stamp?.status === 'scheduled', 'a Unix time schedules the run',
	    JSON.stringify(stamp));
	r = await good('workflow_get', { id: stamp?.id },
	    'workflow_get: id (the seed\'s name)');
	check(r?.start_at === new Date(unix * 1000).toISOString(),
	    'the Unix time is the run\'s start time', `${r?.start_at} ${unix}`);
	await bad('workflow_create', { flow: gateFlow, schedule: 'at teatime' },
	    'workflow_create: a schedule it cannot read', 'at teatime');
	await bad('workflow_get', { id: 1, workflow_id: 1 },
	    'workflow_get: both id and workflow_id', 'not both');
	await bad('workflow_get', {}, 'workflow_get: no id',
	    'arguments.workflow_id: missing');

	// workflow_list with the seed's options.
	r = await good('workflow_list', { limit: 50, status: 'all' },
	    'workflow_list: status all');
	check(r?.workflows?.length === 5, 'workflow_list: all five runs',
	    r?.workflows?.length);
	r = await good('workflow_list', { limit: 2 }, 'workflow_list: limit');
	check(r?.workflows?.length === 2, 'workflow_list: limit 2', JSON.stringify(r));

	// workflow_step_ready: a gate that allows agents is approved ...
	const gate = await until('the run waits at its gate', async () => {
		const g = await call('workflow_get', { id: now?.id });
		return g.structuredContent?.steps?.find((s) =>
		    s.name === 'ask' && s.status === 'waiting');
	});
	r = await good('workflow_step_ready', { id: gate?.id },
	    'workflow_step_ready: a gate allowing agents');
	check(r?.step_id === gate?.id, 'workflow_step_ready names the step',
	    JSON.stringify(r));
	const done = await until('the approved run completes', async () => {
		const g = await call('workflow_get', { id: now?.id });
		return g.structuredContent?.status === 'completed' ?
		    g.structuredContent : null;
	});
	const after = done?.steps?.find((s) => s.name === 'after');
	check(after?.result?.who === 'seed', 'the step after the gate ran with the input',
	    JSON.stringify(after));
	// ... a gate for people refuses it, saying the gate must allow agents ...
	const pgate = await until('the people run waits', async () => {
		const g = await call('workflow_get', { id: people?.id });
		return g.structuredContent?.steps?.find((s) =>
		    s.status === 'waiting');
	});
	await bad('workflow_step_ready', { id: pgate?.id },
	    'workflow_step_ready: a gate for people refuses an agent',
	    'agents');
	// ... and a wait step is completed.
	const ext = await until('the wait step waits', async () => {
		const g = await call('workflow_get', { id: nul?.id });
		return g.structuredContent?.steps?.find((s) =>
		    s.name === 'ext' && s.status === 'waiting');
	});
	await good('workflow_step_ready', { id: ext?.id, result: 42 },
	    'workflow_step_ready: a wait step');
	const wdone = await until('the wait run completes', async () => {
		const g = await call('workflow_get', { id: nul?.id });
		return g.structuredContent?.status === 'completed' ?
		    g.structuredContent : null;
	});
	check(wdone?.steps?.find((s) => s.name === 'then')?.result?.n === 42,
	    'the step after the wait step saw its result', JSON.stringify(wdone));
	await bad('workflow_step_ready', { id: after?.id },
	    'workflow_step_ready: a tool step is not for it', 'is a tool step');
	await bad('workflow_step_ready', { id: 999999 },
	    'workflow_step_ready: an unknown step', '999999');

	// workflow_cancel by id, and the template removed by its id.
	r = await good('workflow_cancel', { id: phrase?.id },
	    'workflow_cancel: id');
	check(r?.workflow_id === phrase?.id, 'workflow_cancel names the run',
	    JSON.stringify(r));
	r = await good('workflow_get', { id: phrase?.id }, 'workflow_get after cancel');
	check(r?.status === 'cancelled', 'the cancelled run is cancelled', r?.status);
	await good('workflow_template_delete', { id: tmpl?.id ?? 'greet' },
	    'workflow_template_delete: id');
	r = await good('workflow_template_list', {}, 'workflow_template_list again');
	check(!(r?.templates ?? []).some((t) => t.id === 'greet'),
	    'the removed template is gone from the list', JSON.stringify(r));
	await bad('workflow_template_delete', { id: 'greet' },
	    'workflow_template_delete: a removed template', 'greet');

	lines.push(`IDS ${now?.id} ${people?.id} ${pgate?.id} ${stamp?.id}`);
} catch (e) {
	check(false, 'the session', e.stack);
} finally {
	await close();
}
console.log(lines.join('\n'));
