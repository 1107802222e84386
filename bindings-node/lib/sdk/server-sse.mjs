// `oxmcp/server/sse.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/sse.js`).
import cjs from './server-sse.cjs';
export const { SSEServerTransport } = cjs;
