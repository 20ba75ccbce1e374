#!/usr/bin/env node
// A minimal MCP client over streamable HTTP for the conformance suite's client scenarios.
//
//   MCP_CONFORMANCE_SCENARIO=<scenario> node tools/conformance/reference_client.mjs <server URL>
//
// It exists to prove that tools/dev/conformance works before the C++ client does, and to show
// in a few lines what the suite expects of a client (docs/conformance.md): the legacy handshake
// (initialize, then the notifications/initialized notification), the session id and protocol
// version headers, JSON or SSE answers, and resuming an SSE stream the server ended early with a
// GET carrying Last-Event-ID after the `retry` delay. It does what the scenario named in
// MCP_CONFORMANCE_SCENARIO asks (initialize, tools_call, sse-retry) and exits 0, or says what
// went wrong on stderr and exits 1 (2 for bad usage). Uses only Node's standard library.

const PROTOCOL_VERSION = '2025-11-25';
const ACCEPTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
const CLIENT_INFO = { name: 'agentrt-reference-client', version: '0' };
const DEFAULT_RETRY_MS = 1000; // when a stream ends early and the server named no delay
const MAX_RESUMES = 5;

const log = (...parts) => process.stderr.write(`reference_client: ${parts.join(' ')}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Yields the events of an SSE body (https://html.spec.whatwg.org/#event-stream-interpretation):
// {id?, retry?, event?, data?}. An event with no data line is still yielded, so that its id and
// retry count (a server's priming event has an id and an empty data field).
async function* sseEvents(body) {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = {};
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let match;
    while ((match = /\r\n|\r|\n/.exec(buffer)) !== null) {
      // A lone \r at the end of the buffer may be the first half of \r\n.
      if (match[0] === '\r' && match.index === buffer.length - 1) break;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      if (line === '') {
        if (Object.keys(event).length > 0) yield event;
        event = {};
        continue;
      }
      if (line.startsWith(':')) continue; // a comment (keep-alive)
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
      else if (field === 'id' && !value.includes('\0')) event.id = value;
      else if (field === 'retry' && /^[0-9]+$/.test(value)) event.retry = Number(value);
      else if (field === 'event') event.event = value;
    }
  }
}

class Session {
  constructor(url) {
    this.url = url;
    this.sessionId = null;
    this.protocolVersion = null;
    this.nextId = 1;
  }

  headers(extra = {}) {
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...extra,
    };
    if (this.sessionId !== null) headers['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersion !== null) headers['MCP-Protocol-Version'] = this.protocolVersion;
    return headers;
  }

  async post(message) {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: JSON.stringify(message),
    });
    const session = response.headers.get('mcp-session-id');
    if (session !== null && this.sessionId === null) this.sessionId = session;
    return response;
  }

  async notify(method, params) {
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    const response = await this.post(message);
    // 202 is the rule; some servers answer 200 with a body, which says nothing about a
    // notification and is read and dropped.
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${method}: HTTP ${response.status}`);
  }

  async request(method, params) {
    const id = this.nextId++;
    const message = { jsonrpc: '2.0', id, method };
    if (params !== undefined) message.params = params;
    const response = await this.post(message);
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok) {
      throw new Error(`${method}: HTTP ${response.status} ${await response.text()}`);
    }
    let reply;
    if (type.startsWith('application/json')) {
      reply = await response.json();
    } else if (type.startsWith('text/event-stream')) {
      reply = await this.awaitOnStream(response, id);
    } else {
      throw new Error(`${method}: unexpected Content-Type '${type}'`);
    }
    if (reply.error !== undefined) {
      throw new Error(`${method}: error ${reply.error.code} ${reply.error.message}`);
    }
    return reply.result;
  }

  // Reads SSE events until the response with `id`. When the server ends the stream first, waits
  // the last `retry` it gave and resumes with a GET carrying the last event id it saw.
  async awaitOnStream(response, id) {
    let lastEventId = null;
    let retryMs = null;
    for (let resumes = 0; ; resumes++) {
      for await (const event of sseEvents(response.body)) {
        if (event.id !== undefined) lastEventId = event.id;
        if (event.retry !== undefined) retryMs = event.retry;
        if (event.data === undefined || event.data === '') continue; // priming event
        const message = JSON.parse(event.data);
        if (message.method !== undefined && message.id !== undefined) {
          await this.refuse(message); // a server-to-client request this client does not serve
        } else if (message.id === id && (message.result !== undefined || message.error !== undefined)) {
          return message; // leaving the loop cancels the body, which closes the stream
        }
      }
      if (lastEventId === null) throw new Error(`stream ended before the answer to request ${id}`);
      if (resumes === MAX_RESUMES) throw new Error(`no answer to request ${id} after ${resumes} resumes`);
      const delay = retryMs ?? DEFAULT_RETRY_MS;
      log(`stream ended before the answer to request ${id}; resuming after ${delay} ms from event ${lastEventId}`);
      await sleep(delay);
      response = await fetch(this.url, {
        method: 'GET',
        headers: this.headers({ Accept: 'text/event-stream', 'Last-Event-ID': lastEventId }),
      });
      if (!response.ok) throw new Error(`resuming GET: HTTP ${response.status}`);
    }
  }

  async refuse(request) {
    const response = await this.post({
      jsonrpc: '2.0',
      id: request.id,
      error: { code: -32601, message: `Method not found: ${request.method}` },
    });
    await response.arrayBuffer();
  }

  async initialize() {
    const result = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
    if (!ACCEPTED_VERSIONS.includes(result.protocolVersion)) {
      throw new Error(`the server chose protocol version ${JSON.stringify(result.protocolVersion)}`);
    }
    this.protocolVersion = result.protocolVersion;
    await this.notify('notifications/initialized');
    return result;
  }

  async close() {
    if (this.sessionId === null) return;
    // Ends the session; a server may refuse (405) or not know the method, which changes nothing.
    const response = await fetch(this.url, { method: 'DELETE', headers: this.headers() });
    await response.arrayBuffer();
  }
}

async function listTools(session) {
  const tools = [];
  let cursor;
  do {
    const page = await session.request('tools/list', cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

async function callTool(session, tools, name, args) {
  if (!tools.some((tool) => tool.name === name)) throw new Error(`the server lists no tool '${name}'`);
  const result = await session.request('tools/call', { name, arguments: args });
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  log(`${name} -> ${JSON.stringify(result.content)}`);
}

const SCENARIOS = {
  initialize: async (session) => {
    await session.initialize();
  },
  tools_call: async (session) => {
    await session.initialize();
    await callTool(session, await listTools(session), 'add_numbers', { a: 2, b: 3 });
  },
  'sse-retry': async (session) => {
    await session.initialize();
    await callTool(session, await listTools(session), 'test_reconnection', {});
  },
};

async function main() {
  const url = process.argv[2];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (process.argv.length !== 3 || !/^https?:\/\//.test(url ?? '')) {
    log('usage: MCP_CONFORMANCE_SCENARIO=<scenario> reference_client.mjs <server URL>');
    process.exit(2);
  }
  const run = SCENARIOS[scenario];
  if (run === undefined) {
    log(`no behaviour for scenario '${scenario}' (known: ${Object.keys(SCENARIOS).join(', ')})`);
    process.exit(2);
  }
  const session = new Session(url);
  try {
    await run(session);
  } finally {
    await session.close().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
