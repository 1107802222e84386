// The TS SDK's transports as oxmcp spells them (lib/sdk/transports.cjs).
import type { IncomingMessage, ServerResponse } from 'node:http';

export declare class StdioServerTransport {
  constructor(stdin?: NodeJS.ReadableStream, stdout?: NodeJS.WritableStream);
  onclose: (() => void) | undefined;
  onerror: ((e: Error) => void) | undefined;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface StreamableHTTPServerTransportOptions {
  /** A function: sessions (the core makes the ids); undefined: stateless. */
  sessionIdGenerator?: (() => string) | undefined;
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
  /** Accepted; the core answers JSON unless the handler sends notifications before its result. */
  enableJsonResponse?: boolean;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  enableDnsRebindingProtection?: boolean;
  eventStore?: unknown;
}

export declare class StreamableHTTPServerTransport {
  constructor(options?: StreamableHTTPServerTransportOptions);
  sessionId: string | undefined;
  onclose: (() => void) | undefined;
  onerror: ((e: Error) => void) | undefined;
  start(): Promise<void>;
  close(): Promise<void>;
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
}

export declare class WebStandardStreamableHTTPServerTransport {
  constructor(options?: StreamableHTTPServerTransportOptions);
  sessionId: string | undefined;
  onclose: (() => void) | undefined;
  onerror: ((e: Error) => void) | undefined;
  start(): Promise<void>;
  close(): Promise<void>;
  /** `authInfo` is refused (a TypeError): the core's authentication names the caller. */
  handleRequest(request: Request, options?: { parsedBody?: unknown; authInfo?: never }): Promise<Response>;
}
