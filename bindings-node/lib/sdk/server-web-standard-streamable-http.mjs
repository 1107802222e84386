// `oxmcp/server/webStandardStreamableHttp.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js`).
import cjs from './server-web-standard-streamable-http.cjs';
export const { WebStandardStreamableHTTPServerTransport } = cjs;
