// `oxmcp/server/express.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/express.js`).
import cjs from './server-express.cjs';
export const { createMcpExpressApp } = cjs;
