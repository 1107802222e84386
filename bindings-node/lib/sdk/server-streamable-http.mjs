// `oxmcp/server/streamableHttp.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/streamableHttp.js`).
import cjs from './server-streamable-http.cjs';
export const { StreamableHTTPServerTransport } = cjs;
