#!/usr/bin/env node
// Captures the tool list of a stdio MCP server as JSON.
//
//   node tools/dev/capture_tool_schemas.mjs --out FILE -- COMMAND [ARGS...]
//
// Starts COMMAND as a child process, performs the MCP handshake over
// newline-delimited JSON-RPC on its stdin/stdout (initialize, then the
// notifications/initialized notification), calls tools/list following
// nextCursor paging, and writes the collected `tools` array to FILE,
// pretty-printed with 2-space indentation. The server's stderr is shown only
// if something fails. The whole exchange must finish within 10 seconds. Exits
// 0 on success, 1 on a server, protocol or timeout error, 2 on bad usage.
// Uses only Node's standard library.

import { spawn } from 'node:child_process';
import { writeFileSync, renameSync, unlinkSync } from 'node:fs';
import { basename } from 'node:path';

const PROTOCOL_VERSION = '2025-06-18';
const CLIENT_INFO = { name: 'agentrt-capture', version: '0' };
const TIMEOUT_MS = 10_000;
const MAX_PAGES = 1000;
const STDERR_TAIL_BYTES = 8192;

const PROG = basename(process.argv[1] ?? 'capture_tool_schemas.mjs');
const USAGE = `usage: node ${PROG} --out FILE -- COMMAND [ARGS...]`;

function usageError(message) {
  process.stderr.write(`${PROG}: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  let out = null;
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      i++;
      break;
    } else if (arg === '--out') {
      if (i + 1 >= argv.length) usageError('--out needs a file name');
      out = argv[++i];
    } else if (arg.startsWith('--out=')) {
      out = arg.slice('--out='.length);
    } else if (arg === '-h' || arg === '--help') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else {
      usageError(`unexpected argument '${arg}' (put the server command after --)`);
    }
  }
  if (!out) usageError('--out FILE is required');
  const command = argv.slice(i);
  if (command.length === 0) usageError('no server command given after --');
  return { out, command };
}

class CaptureError extends Error {}

// A newline-delimited JSON-RPC client over a child process's stdio.
class StdioClient {
  constructor(command) {
    this.command = command;
    this.nextId = 1;
    this.pending = new Map(); // id -> { method, resolve, reject }
    this.stderrTail = '';
    this.buffer = '';
    this.failure = null;
    this.exited = false;
    this.exitPromise = null;

    this.child = spawn(command[0], command.slice(1), {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exitPromise = new Promise((resolve) => {
      // 'close' rather than 'exit': it comes after stdout has been drained,
      // so a response written just before the server exits is not lost.
      this.child.on('close', (code, signal) => {
        this.exited = true;
        this.fail(new CaptureError(
          `server exited early (${signal ? `signal ${signal}` : `exit code ${code}`})`));
        resolve();
      });
    });
    this.child.on('error', (err) => {
      this.exited = err.code === 'ENOENT' || err.code === 'EACCES' || this.exited;
      this.fail(new CaptureError(`cannot run '${command[0]}': ${err.message}`));
    });
    this.child.stdin.on('error', (err) => {
      this.fail(new CaptureError(`writing to the server failed: ${err.message}`));
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => this.onData(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
    });
  }

  // Records the first failure and rejects every outstanding request with it.
  fail(err) {
    if (!this.failure) this.failure = err;
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
  }

  send(message) {
    if (this.failure) throw this.failure;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.failure) {
        reject(this.failure);
        return;
      }
      this.pending.set(id, { method, resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method, params) {
    const message = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.send(message);
  }

  onData(chunk) {
    this.buffer += chunk;
    let newline;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      if (line.trim() !== '') this.onLine(line);
    }
  }

  onLine(line) {
    if (this.failure) return; // already failing: ignore whatever follows
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.fail(new CaptureError(
        `server wrote a line to stdout that is not JSON: ${truncate(line)}`));
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.fail(new CaptureError(
        `server sent something other than a JSON-RPC message: ${truncate(line)}`));
      return;
    }
    if (typeof message.method === 'string') {
      // A request from the server (it has an id): we offer no client
      // capabilities, so answer every one with "method not found".
      // Notifications (logging, list_changed, ...) are ignored.
      if (message.id !== undefined && message.id !== null) {
        this.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32601, message: `method not supported by ${CLIENT_INFO.name}` },
        });
      }
      return;
    }
    const entry = this.pending.get(message.id);
    if (!entry) {
      this.fail(new CaptureError(
        `server sent a response to unknown request id ${JSON.stringify(message.id)}`));
      return;
    }
    this.pending.delete(message.id);
    if (message.error !== undefined) {
      const { code, message: text } = message.error ?? {};
      entry.reject(new CaptureError(
        `${entry.method} failed: JSON-RPC error ${code}: ${text}`));
    } else if (message.result === undefined) {
      entry.reject(new CaptureError(`${entry.method} response has no result`));
    } else {
      entry.resolve(message.result);
    }
  }

  // MCP stdio shutdown: close stdin, then SIGTERM, then SIGKILL.
  async close() {
    if (this.exited || this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = () => this.exited;
    const waitExit = (ms) => Promise.race([
      this.exitPromise,
      new Promise((resolve) => setTimeout(resolve, ms).unref()),
    ]);
    this.child.stdin.end();
    await waitExit(1000);
    if (exited()) return;
    this.child.kill('SIGTERM');
    await waitExit(2000);
    if (exited()) return;
    this.child.kill('SIGKILL');
    await waitExit(2000);
  }
}

function truncate(text, max = 200) {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

async function capture(client) {
  const init = await client.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: CLIENT_INFO,
  });
  if (init === null || typeof init !== 'object') {
    throw new CaptureError('initialize result is not an object');
  }
  const server = init.serverInfo ?? {};
  process.stderr.write(
    `${PROG}: server ${server.name ?? '?'} ${server.version ?? '?'}, ` +
    `protocol ${init.protocolVersion ?? '?'}\n`);
  if (init.protocolVersion !== PROTOCOL_VERSION) {
    process.stderr.write(
      `${PROG}: warning: asked for protocol ${PROTOCOL_VERSION}, ` +
      `server chose ${init.protocolVersion}\n`);
  }
  if (!init.capabilities || typeof init.capabilities.tools !== 'object') {
    throw new CaptureError('server does not declare the tools capability');
  }
  client.notify('notifications/initialized');

  const tools = [];
  const seenCursors = new Set();
  let cursor;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES) throw new CaptureError(`tools/list returned more than ${MAX_PAGES} pages`);
    const result = await client.request('tools/list', cursor === undefined ? {} : { cursor });
    if (!result || !Array.isArray(result.tools)) {
      throw new CaptureError('tools/list result has no tools array');
    }
    tools.push(...result.tools);
    if (result.nextCursor === undefined || result.nextCursor === null) break;
    if (typeof result.nextCursor !== 'string') {
      throw new CaptureError('tools/list nextCursor is not a string');
    }
    if (seenCursors.has(result.nextCursor)) {
      throw new CaptureError(`tools/list repeated cursor ${JSON.stringify(result.nextCursor)}`);
    }
    seenCursors.add(result.nextCursor);
    cursor = result.nextCursor;
  }

  const names = new Set();
  for (const [index, tool] of tools.entries()) {
    if (!tool || typeof tool.name !== 'string') {
      throw new CaptureError(`tool #${index} has no name`);
    }
    if (names.has(tool.name)) throw new CaptureError(`tool ${tool.name} listed twice`);
    names.add(tool.name);
    if (!tool.inputSchema || typeof tool.inputSchema !== 'object') {
      throw new CaptureError(`tool ${tool.name} has no inputSchema`);
    }
  }
  return tools;
}

function writeOutput(file, tools) {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, `${JSON.stringify(tools, null, 2)}\n`);
    renameSync(tmp, file);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw new CaptureError(`cannot write ${file}: ${err.message}`);
  }
}

async function main() {
  const { out, command } = parseArgs(process.argv.slice(2));
  const client = new StdioClient(command);
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new CaptureError(
      `timed out after ${TIMEOUT_MS / 1000} s waiting for the server`)), TIMEOUT_MS);
  });
  try {
    const tools = await Promise.race([capture(client), timeout]);
    writeOutput(out, tools);
    process.stderr.write(`${PROG}: wrote ${tools.length} tools to ${out}\n`);
  } catch (err) {
    const message = err instanceof CaptureError ? err.message : (err?.stack ?? String(err));
    process.stderr.write(`${PROG}: error: ${message}\n`);
    const tail = client.stderrTail.trim();
    if (tail) process.stderr.write(`${PROG}: server stderr:\n${tail}\n`);
    process.exitCode = 1;
  } finally {
    clearTimeout(timer);
    await client.close();
  }
  process.exit(process.exitCode ?? 0);
}

main();
