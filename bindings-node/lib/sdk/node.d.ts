// `oxmcp/node`: the TS SDK v2 package `@modelcontextprotocol/node`.
import type { IncomingMessage, ServerResponse } from 'node:http';
export { StreamableHTTPServerTransport as NodeStreamableHTTPServerTransport } from './transports.js';
export declare function toNodeHandler(
  handler: { fetch(request: Request, options?: { parsedBody?: unknown }): Promise<Response> },
  options?: unknown,
): (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>;
export declare function toWebRequest(req: IncomingMessage, parsedBody?: unknown): Promise<Request>;
