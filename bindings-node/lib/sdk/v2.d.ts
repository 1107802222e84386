import type { McpServer } from './mcp.js';
export type McpServerFactory = (ctx: { era: 'legacy' | 'modern'; authInfo?: unknown; requestInfo?: Request }) => McpServer | Promise<McpServer>;
export interface McpHttpHandler {
  fetch(request: Request, options?: { parsedBody?: unknown; authInfo?: unknown }): Promise<Response>;
  close(): Promise<void>;
  notify: { toolsChanged(): void; promptsChanged(): void; resourcesChanged(): void; resourceUpdated(uri: string): void };
}
export declare function createMcpHandler(factory: McpServerFactory, options?: { legacy?: 'stateless' | 'reject'; onerror?: (e: Error) => void }): McpHttpHandler;
