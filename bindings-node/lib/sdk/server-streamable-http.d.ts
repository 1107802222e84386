// `oxmcp/server/streamableHttp.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/streamableHttp.js`.
export { StreamableHTTPServerTransport, StreamableHTTPServerTransportOptions } from './transports.js';
