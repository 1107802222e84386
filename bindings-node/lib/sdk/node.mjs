// `oxmcp/node` (the TS SDK v2 package `@modelcontextprotocol/node`).
import cjs from './node.cjs';
export const { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } = cjs;
