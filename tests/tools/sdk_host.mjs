// A real MCP host for the proxy's tests: the official TypeScript SDK's client (pinned in
// fixtures/servers/package-lock.json), spawning `agentrt proxy` as its stdio server, as a desktop
// host or a CLI agent does.
//
//   node sdk_host.mjs SDK_DIR AGENTRT CONFIG CALLS_JSON
//
// CALLS_JSON is an array of {"tool", "arguments"}. Prints one JSON line with the listed tool
// names, then one line per call: {"isError", "text"} (the first content block's text). The
// proxy's stderr passes through to this process's stderr.
import { pathToFileURL } from 'node:url';

const [sdk, agentrt, config, callsJson] = process.argv.slice(2);
const { Client } = await import(pathToFileURL(`${sdk}/dist/esm/client/index.js`).href);
const { StdioClientTransport } = await import(
  pathToFileURL(`${sdk}/dist/esm/client/stdio.js`).href
);

const transport = new StdioClientTransport({
  command: agentrt,
  args: ['proxy', '--config', config],
  stderr: 'inherit',
});
const client = new Client({ name: 'agentrt-test-host', version: '1.0.0' });
await client.connect(transport);
const listed = await client.listTools();
console.log(JSON.stringify({ tools: listed.tools.map((t) => t.name) }));
for (const call of JSON.parse(callsJson)) {
  const result = await client.callTool({ name: call.tool, arguments: call.arguments });
  console.log(JSON.stringify({ isError: result.isError === true, text: result.content?.[0]?.text ?? '' }));
}
await client.close();
