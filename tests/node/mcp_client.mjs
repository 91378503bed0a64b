// Drive an MCP server over stdio with the TypeScript SDK client, for the Python tests.
// Usage: node mcp_client.mjs '<json: {"command", "args", "calls": [{"name", "arguments"}], "reads"?: [uri]}>'
// Prints one JSON object: the server's instructions, its tools and every call's result;
// with "reads", also the resources listed after the calls and each URI's read result.
// The SDK validates structuredContent against each listed outputSchema; a call it
// rejects is reported as {"rejected": message}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const spec = JSON.parse(process.argv[2]);
const transport = new StdioClientTransport({
  command: spec.command,
  args: spec.args,
  env: { ...process.env },
  stderr: "ignore",
});
const client = new Client({ name: "gcxwire-ts-test", version: "1.0.0" });
await client.connect(transport);
const tools = (await client.listTools()).tools;
const results = [];
for (const call of spec.calls) {
  try {
    results.push(await client.callTool({ name: call.name, arguments: call.arguments }));
  } catch (error) {
    results.push({ rejected: String(error) });
  }
}
const out = { instructions: client.getInstructions() ?? null, tools, results };
if (spec.reads) {
  out.resources = (await client.listResources()).resources;
  out.reads = [];
  for (const uri of spec.reads) {
    out.reads.push(await client.readResource({ uri }));
  }
}
process.stdout.write(JSON.stringify(out));
await client.close();
