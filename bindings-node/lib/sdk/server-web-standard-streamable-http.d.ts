// `oxmcp/server/webStandardStreamableHttp.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js`.
export { WebStandardStreamableHTTPServerTransport, StreamableHTTPServerTransportOptions as WebStandardStreamableHTTPServerTransportOptions } from './transports.js';
