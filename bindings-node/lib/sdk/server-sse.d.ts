// `oxmcp/server/sse.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/sse.js`.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface SSEServerTransportOptions {
  allowedHosts?: string[];
  allowedOrigins?: string[];
  enableDnsRebindingProtection?: boolean;
}

/** The 2024-11-05 HTTP+SSE transport: `GET` opens the stream, `handlePostMessage` takes each POST. */
export class SSEServerTransport {
  constructor(endpoint: string, res: ServerResponse, options?: SSEServerTransportOptions);
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: unknown) => void;
  start(): Promise<void>;
  handlePostMessage(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  close(): Promise<void>;
}
