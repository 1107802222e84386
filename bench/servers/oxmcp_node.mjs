// oxmcp (Node binding) benchmark server: the same two tools as every peer.
//
//   node bench/servers/oxmcp_node.mjs                        # stdio
//   node bench/servers/oxmcp_node.mjs --http 127.0.0.1:8000  # Streamable HTTP at /mcp
//
// Tools: add(a: int, b: int) -> text "3" for 1+2, echo(text: string) -> text.
// `oxmcp` resolves to the repository's own package (package self-reference).
import { Server, runFromArgs } from 'oxmcp';

const server = new Server({ name: 'bench-oxmcp-node', version: '0.1.0' });
server.registerTool(
  'add',
  {
    description: 'Add two integers.',
    inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
  },
  ({ a, b }) => String(a + b),
);
server.registerTool(
  'echo',
  {
    description: 'Echo the text back.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  ({ text }) => text,
);

await runFromArgs(server);
