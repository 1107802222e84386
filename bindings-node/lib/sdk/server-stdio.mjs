// `oxmcp/server/stdio.js` (v1) and `oxmcp/stdio` (v2 `@modelcontextprotocol/server/stdio`).
import cjs from './server-stdio.cjs';
export const { StdioServerTransport, serveStdio } = cjs;
