#!/usr/bin/env node
// The conformance "everything" server on oxmcp for Node: every fixture the official conformance
// suite's scenarios need (tests/conformance/README.md) that the core supports.
//
//   node examples/node/everything.mjs                      # stdio
//   node examples/node/everything.mjs --http 127.0.0.1:8000  # Streamable HTTP at /mcp
import { setTimeout as sleepFor } from 'node:timers/promises';
import { Server, ResourceTemplate, ToolError, McpError, text, image, audio, resource, runFromArgs } from 'oxmcp';

// A 1×1 PNG and a tiny WAV (8 kHz, 8-bit mono, 8 samples of silence).
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
function wav() {
  const samples = Buffer.alloc(8, 0x80);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0); h.writeUInt32LE(36 + samples.length, 4); h.write('WAVE', 8);
  h.write('fmt ', 12); h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24); h.writeUInt32LE(8000, 28); h.writeUInt16LE(1, 32); h.writeUInt16LE(8, 34);
  h.write('data', 36); h.writeUInt32LE(samples.length, 40);
  return Buffer.concat([h, samples]);
}
const WAV = wav();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function envOptions() {
  const out = {};
  const env = (name) => (process.env[name] ?? '').trim();
  // Without OXMCP_STATE_KEY the core makes a random per-process key (and says so in a warning):
  // a fixed fallback in a published example would be a key everyone knows.
  if (env('OXMCP_STATE_KEY')) out.stateKey = env('OXMCP_STATE_KEY');
  if (env('OXMCP_REDIS_URL')) out.redisUrl = env('OXMCP_REDIS_URL');
  if (env('OXMCP_REDIS_TLS_CA')) out.redisTlsCa = env('OXMCP_REDIS_TLS_CA');
  if (env('OXMCP_ALLOWED_HOSTS')) out.allowedHosts = env('OXMCP_ALLOWED_HOSTS').split(',').map((h) => h.trim()).filter(Boolean);
  // Named tokens (the core's JSON or "name=token,...") and the per-caller listen cap, so the
  // hardening tests replay the Rust server's allow-list checks against this one.
  if (env('OXMCP_TOKENS')) out.tokens = env('OXMCP_TOKENS').startsWith('{') ? JSON.parse(env('OXMCP_TOKENS')) : env('OXMCP_TOKENS');
  if (env('OXMCP_MAX_LISTENERS_PER_CALLER')) out.maxListenersPerCaller = Number(env('OXMCP_MAX_LISTENERS_PER_CALLER'));
  // The task lease and the Redis timeout, so the scale-out fault tests can use short ones.
  if (env('OXMCP_TASK_LEASE_MS')) out.taskLeaseMs = Number(env('OXMCP_TASK_LEASE_MS'));
  if (env('OXMCP_REDIS_TIMEOUT_MS')) out.redisTimeoutMs = Number(env('OXMCP_REDIS_TIMEOUT_MS'));
  // The HTTP+SSE transport beside Streamable HTTP, and the keep-alive that paces its streams'
  // leases in Redis.
  if (env('OXMCP_SSE')) out.sse = ['1', 'true'].includes(env('OXMCP_SSE'));
  if (env('OXMCP_KEEP_ALIVE_MS')) out.keepAliveMs = Number(env('OXMCP_KEEP_ALIVE_MS'));
  // The experimental tool-search method (its transcript, tests/transcripts/tool-search.json).
  if (env('OXMCP_TOOL_SEARCH_METHOD')) out.toolSearchMethod = env('OXMCP_TOOL_SEARCH_METHOD') === 'true';
  return out;
}

export function createServer(options = {}) {
  const server = new Server({
    name: 'oxmcp-everything-node',
    version: '0.1.0',
    instructions: 'Conformance fixtures for oxmcp (Node binding).',
    // Deployment settings from the environment, as the Rust everything server reads them
    // (docs/SCALE-OUT.md): Redis, shared by the replicas, and the Host names a proxy forwards.
    ...envOptions(),
    ...options,
  });

  // ---------------------------------------------------------------- tools: content kinds
  server.registerTool('test_simple_text', { description: 'Returns a simple text response' },
    () => 'This is a simple text response for testing.');
  server.registerTool('test_image_content', { description: 'Returns an image' },
    () => [image(PNG, 'image/png')]);
  server.registerTool('test_audio_content', { description: 'Returns audio' },
    () => [audio(WAV, 'audio/wav')]);
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded resource' },
    () => [resource({ uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' })]);
  server.registerTool('test_multiple_content_types', { description: 'Returns text, image and resource content' },
    () => [
      text('Multiple content types test:'),
      image(PNG, 'image/png'),
      resource({ uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) }),
    ]);
  server.registerTool('test_error_handling', { description: 'Always fails with a tool error' }, () => {
    throw new ToolError('This tool intentionally returns an error for testing');
  });

  // ---------------------------------------------------------------- tools: notifications
  const logTool = async (ctx) => {
    await ctx.log('info', 'Tool execution started');
    await sleep(50);
    await ctx.log('info', 'Tool processing data');
    await sleep(50);
    await ctx.log('info', 'Tool execution completed');
    return 'Tool with logging executed successfully';
  };
  server.registerTool('test_tool_with_logging', { description: 'Logs three messages while running' }, logTool);
  server.registerTool('test_logging_tool', { description: 'Logs (only when the request asked for a log level)' }, logTool);
  server.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50, 100 of 100' }, async (ctx) => {
    for (const p of [0, 50, 100]) {
      await ctx.progress(p, 100, `step ${p}`);
      await sleep(50);
    }
    return 'Progress test completed';
  });

  // ---------------------------------------------------------------- tools: client input (legacy requests or MRTR)
  server.registerTool('test_sampling', {
    description: 'Asks the client model for a completion',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  }, async ({ prompt }, ctx) => {
    const r = await ctx.sample('sampling', { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
    return `LLM response: ${r?.content?.text ?? JSON.stringify(r?.content)}`;
  });
  server.registerTool('test_elicitation', {
    description: 'Asks the user for input',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  }, async ({ message }, ctx) => {
    const r = await ctx.elicit('elicitation', {
      message,
      requestedSchema: { type: 'object', properties: { response: { type: 'string', description: 'your response' } }, required: ['response'] },
    });
    return `User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`;
  });
  server.registerTool('test_elicitation_sep1034_defaults', { description: 'Elicitation with defaults (SEP-1034)' }, async (ctx) => {
    const r = await ctx.elicit('defaults', {
      message: 'Please review and update the form fields with defaults',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'User name', default: 'John Doe' },
          age: { type: 'integer', description: 'User age', default: 30 },
          score: { type: 'number', description: 'User score', default: 95.5 },
          status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verification status', default: true },
        },
      },
    });
    return `Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`;
  });
  server.registerTool('test_elicitation_sep1330_enums', { description: 'Elicitation with enum variants (SEP-1330)' }, async (ctx) => {
    const r = await ctx.elicit('enums', {
      message: 'Please select options from the enum fields',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }] },
          legacyEnum: { type: 'string', enum: ['opt1', 'opt2'], enumNames: ['Option One', 'Option Two'] },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
          titledMulti: { type: 'array', items: { anyOf: [{ const: 'x', title: 'Ex' }, { const: 'y', title: 'Why' }] } },
        },
      },
    });
    return `Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`;
  });
  server.registerTool('test_missing_capability', { description: 'Needs the sampling capability' }, async (ctx) => {
    const r = await ctx.sample('needs_sampling', { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
    return `sampled: ${JSON.stringify(r?.content ?? null)}`;
  });
  server.registerTool('test_streaming_elicitation', { description: 'Elicits (as MRTR on modern requests)' }, async (ctx) => {
    const r = await ctx.elicit('confirm', { message: 'Continue?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `action=${r.action}`;
  });

  // ---------------------------------------------------------------- tools: MRTR (2026-07-28)
  const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
  server.registerTool('test_input_required_result_elicitation', { description: 'MRTR: elicitation' }, async (ctx) => {
    const r = await ctx.elicit('user_name', { message: 'What is your name?', requestedSchema: nameSchema });
    return `Hello, ${r.content?.name ?? 'anonymous'} (action: ${r.action})`;
  });
  server.registerTool('test_input_required_result_sampling', { description: 'MRTR: sampling' }, async (ctx) => {
    const r = await ctx.sample('capital_question', {
      messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100,
    });
    return `The model said: ${r?.content?.text ?? JSON.stringify(r?.content)}`;
  });
  server.registerTool('test_input_required_result_list_roots', { description: 'MRTR: roots' }, async (ctx) => {
    const r = await ctx.roots('client_roots');
    return `Roots: ${(r.roots ?? []).map((x) => x.uri).join(', ') || '(none)'}`;
  });
  server.registerTool('test_input_required_result_request_state', { description: 'MRTR: request state' }, async (ctx) => {
    ctx.requestState = { started: true };
    const r = await ctx.elicit('confirm', { message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `state-ok (action: ${r.action})`;
  });
  server.registerTool('test_input_required_result_multiple_inputs', { description: 'MRTR: several inputs in one round' }, async (ctx) => {
    ctx.requestState = { round: 1 };
    const a = await ctx.inputs({
      user_name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: nameSchema } },
      capital_question: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 50 } },
      client_roots: { method: 'roots/list' },
    });
    return `All inputs received: ${Object.keys(a).join(', ')}`;
  });
  server.registerTool('test_input_required_result_multi_round', { description: 'MRTR: two rounds' }, async (ctx) => {
    const first = await ctx.elicit('first', { message: 'First question?', requestedSchema: nameSchema });
    ctx.requestState = { round: 2 };
    const second = await ctx.elicit('second', { message: 'Second question?', requestedSchema: nameSchema });
    return `Done: ${first.content?.name ?? '-'} / ${second.content?.name ?? '-'}`;
  });
  server.registerTool('test_input_required_result_tampered_state', { description: 'MRTR: integrity-protected state' }, async (ctx) => {
    ctx.requestState = { authorized: false };
    const r = await ctx.elicit('confirm', { message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return `confirmed (action: ${r.action})`;
  });
  server.registerTool('test_input_required_result_capabilities', { description: 'MRTR: only asks what the client declared' }, async (ctx) => {
    const asks = {};
    if (ctx.supports('elicitation')) asks.user_name = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: nameSchema } };
    if (ctx.supports('sampling')) asks.capital_question = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }], maxTokens: 50 } };
    if (ctx.supports('roots')) asks.client_roots = { method: 'roots/list' };
    if (!Object.keys(asks).length) throw new ToolError('the client declared no input capability');
    const a = await ctx.inputs(asks);
    return `Answered: ${Object.keys(a).join(', ')}`;
  });

  // ---------------------------------------------------------------- tools: list changes, JSON Schema 2020-12
  let toggled = false;
  server.registerTool('test_trigger_tool_change', { description: 'Adds or removes a tool (tools/list_changed)' }, () => {
    if (toggled) server.removeTool('test_dynamic_tool');
    else server.registerTool('test_dynamic_tool', { description: 'Added at runtime' }, () => 'dynamic');
    toggled = !toggled;
    return `test_dynamic_tool ${toggled ? 'added' : 'removed'}`;
  });
  server.registerTool('test_trigger_resource_update', { description: 'Marks test://watched-resource as updated' }, () => {
    server.notifyResourceUpdated('test://watched-resource');
    return 'resource updated';
  });
  let promptToggled = false;
  server.registerTool('test_trigger_prompt_change', { description: 'Adds or removes a prompt (prompts/list_changed)' }, () => {
    if (promptToggled) server.removePrompt('test_dynamic_prompt');
    else server.registerPrompt('test_dynamic_prompt', { description: 'Added at runtime' }, () => 'dynamic prompt');
    promptToggled = !promptToggled;
    return `test_dynamic_prompt ${promptToggled ? 'added' : 'removed'}`;
  });
  server.registerTool('test_custom_header', {
    description: 'Mirrors its region argument into the Mcp-Param-Region header (x-mcp-header)',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } },
      required: ['region'],
    },
  }, (args) => `region: ${args.region}`);

  server.registerTool('json_schema_2020_12_tool', {
    description: 'Tool whose inputSchema uses JSON Schema 2020-12 keywords',
    inputSchema: {
      // Exactly what the conformance suite's json-schema-2020-12 scenario expects back.
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  }, (args) => `Received: ${JSON.stringify(args)}`);

  // ---------------------------------------------------------------- resources
  server.registerResource('Static Text Resource', 'test://static-text', { mimeType: 'text/plain', description: 'A static text resource' },
    () => 'This is the content of the static text resource.');
  server.registerResource('Static Binary Resource', 'test://static-binary', { mimeType: 'image/png', description: 'A static binary resource' },
    () => Buffer.from(PNG, 'base64'));
  server.registerResource('Watched Resource', 'test://watched-resource', { mimeType: 'text/plain', description: 'A resource that can be subscribed to' },
    () => 'Watched resource content');
  server.registerResource('Example Resource', 'test://example-resource', { mimeType: 'text/plain', description: 'Used by the embedded-resource prompt' },
    () => 'Example resource content');
  server.registerResource('Template Resource', new ResourceTemplate('test://template/{id}/data', {
    complete: { id: (value) => ['123', '456', '789'].filter((v) => v.startsWith(value)) },
  }), { mimeType: 'application/json', description: 'A resource template' },
  (uri, { id }) => ({ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }));

  // ---------------------------------------------------------------- prompts
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt without arguments' },
    () => ({ messages: [{ role: 'user', content: text('This is a simple prompt for testing.') }] }));
  server.registerPrompt('test_prompt_with_arguments', {
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    complete: { arg1: (value) => ['test', 'testing', 'testValue1', 'other'].filter((v) => v.startsWith(value)) },
  }, ({ arg1, arg2 }) => ({ messages: [{ role: 'user', content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }] }));
  server.registerPrompt('test_prompt_with_embedded_resource', {
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  }, ({ resourceUri }) => ({
    messages: [
      { role: 'user', content: resource({ uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' }) },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  }));
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with image content' }, () => ({
    messages: [
      { role: 'user', content: image(PNG, 'image/png') },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  }));
  server.registerPrompt('test_input_required_result_prompt', { description: 'MRTR in prompts/get' }, async (ctx) => {
    const r = await ctx.elicit('user_name', { message: 'Whose prompt is this?', requestedSchema: nameSchema });
    return { messages: [{ role: 'user', content: text(`A prompt for ${r.content?.name ?? 'someone'}`) }] };
  });

  // -- the Tasks extension: the conformance suite's tasks-* fixtures ------------------------------------
  const confirmSchema = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
  server.registerTool('greet', {
    description: 'Greets by name (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  }, ({ name }) => `Hello, ${name}!`);
  server.registerTool('slow_compute', {
    description: 'Sleeps `seconds`, then answers (a task when the client supports them)',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 600 }, label: { type: 'string' } } },
    execution: { taskSupport: 'optional' },
  }, async ({ seconds = 1, label = 'job' }, ctx) => {
    const steps = Math.max(1, Math.ceil(seconds * 4));
    for (let i = 0; i < steps; i++) {
      await ctx.progress(i, steps);
      await sleepFor((seconds * 1000) / steps, undefined, { signal: ctx.signal });
    }
    return `Computed ${label} in ${seconds} s`;
  });
  server.registerTool('failing_job', {
    description: 'Fails with a tool error after about a second (task only)',
    execution: { taskSupport: 'required' },
  }, async (ctx) => {
    await sleepFor(800, undefined, { signal: ctx.signal });
    throw new ToolError('The job failed: the input was rejected');
  });
  server.registerTool('protocol_error_job', {
    description: 'Fails with a JSON-RPC error: the task ends failed',
    execution: { taskSupport: 'optional' },
  }, async (ctx) => {
    await sleepFor(200, undefined, { signal: ctx.signal });
    throw new McpError(-32603, 'protocol_error_job: deliberate failure');
  });
  server.registerTool('confirm_delete', {
    description: 'Asks the user to confirm, from inside a task',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    execution: { taskSupport: 'optional' },
  }, async ({ filename = 'file.txt' }, ctx) => {
    const r = await ctx.elicit('confirm', { message: `Delete ${filename}?`, requestedSchema: confirmSchema });
    return r.action === 'accept' && r.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`;
  });
  server.registerTool('multi_input', {
    description: 'Asks two questions at once, from inside a task',
    execution: { taskSupport: 'optional' },
  }, async (ctx) => {
    const a = await ctx.inputs({
      name: { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: nameSchema } },
      confirm: { method: 'elicitation/create', params: { message: 'Proceed?', requestedSchema: confirmSchema } },
    });
    return `Got ${a.name?.content?.name ?? '?'}, confirmed: ${a.confirm?.action === 'accept'}`;
  });
  server.registerTool('test_tool_with_task', {
    description: 'Asks for a name by MRTR, then becomes a task for the slow part',
    execution: { taskSupport: 'required' },
    taskAfterMs: 300,
  }, async (ctx) => {
    const r = await ctx.elicit('user_name', { message: 'What is your name?', requestedSchema: nameSchema });
    await sleepFor(1200, undefined, { signal: ctx.signal });
    return `Hello, ${r.content?.name ?? 'stranger'}! (finished as a task)`;
  });

  // The Skills extension: every skill below examples/skills (OXMCP_SKILLS_DIR moves it), one whose
  // SKILL.md is written per request, and one served unlisted (reached by its URI only).
  server.addSkillsDir(process.env.OXMCP_SKILLS_DIR || new URL('../skills', import.meta.url).pathname);
  server.addSkillsDir(new URL('../unlisted-skills', import.meta.url).pathname, { listed: false });
  const clock = "Tell the server's time. Use when asked what time it is on the server.";
  server.dynamicSkill('live/clock', { description: clock, mimeType: 'text/markdown' }, (file) => {
    if (file !== 'SKILL.md') throw new McpError(-32602, `no such file: ${file}`);
    const secs = Math.floor(Date.now() / 1000);
    return `---\nname: clock\ndescription: ${clock}\n---\nThe server's clock reads ${secs} seconds since the Unix epoch.\n`;
  });

  return server;
}

const isMain = import.meta.url === new URL(process.argv[1] ?? '', 'file:').href;
if (isMain) {
  await runFromArgs(createServer());
}
