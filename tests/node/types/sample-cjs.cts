// The CommonJS entry's typings (index.d.cts) with require().
import oxmcp = require('oxmcp');
const server = new oxmcp.Server({ name: 'cjs', version: '1' });
server.registerTool('t', { inputSchema: { type: 'object' } }, (args) => JSON.stringify(args));
const err: oxmcp.ToolError = new oxmcp.ToolError('x');
void err;
