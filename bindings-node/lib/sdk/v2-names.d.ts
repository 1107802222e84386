// The TS SDK v2's constants, error classes and predicates, re-exported by the `oxmcp` root.
import type { McpError } from '../../index.js';
export declare const BAGGAGE_META_KEY: 'baggage';
export declare const CLIENT_CAPABILITIES_META_KEY: 'io.modelcontextprotocol/clientCapabilities';
export declare const CLIENT_INFO_META_KEY: 'io.modelcontextprotocol/clientInfo';
export declare const LOG_LEVEL_META_KEY: 'io.modelcontextprotocol/logLevel';
export declare const PROTOCOL_VERSION_META_KEY: 'io.modelcontextprotocol/protocolVersion';
export declare const SERVER_INFO_META_KEY: 'io.modelcontextprotocol/serverInfo';
export declare const SUBSCRIPTION_ID_META_KEY: 'io.modelcontextprotocol/subscriptionId';
export declare const TRACEPARENT_META_KEY: 'traceparent';
export declare const TRACESTATE_META_KEY: 'tracestate';
export declare const RELATED_TASK_META_KEY: string;
export declare const DEFAULT_MAX_REQUEST_BODY_SIZE: number;
export declare const DEFAULT_REQUEST_TIMEOUT_MSEC: number;
export declare const STDIO_DEFAULT_MAX_BUFFER_SIZE: number;
export declare const PARSE_ERROR: -32700;
export declare const INVALID_REQUEST: -32600;
export declare const METHOD_NOT_FOUND: -32601;
export declare const INVALID_PARAMS: -32602;
export declare const INTERNAL_ERROR: -32603;
export declare const JSONRPC_VERSION: '2.0';
export declare const LATEST_PROTOCOL_VERSION: string;
export declare const DEFAULT_NEGOTIATED_PROTOCOL_VERSION: string;
export declare const SUPPORTED_PROTOCOL_VERSIONS: string[];
export declare const ProtocolErrorCode: {
  readonly ParseError: -32700; readonly InvalidRequest: -32600; readonly MethodNotFound: -32601; readonly InvalidParams: -32602;
  readonly InternalError: -32603; readonly ResourceNotFound: -32002; readonly MissingRequiredClientCapability: -32021;
  readonly UnsupportedProtocolVersion: -32022; readonly UrlElicitationRequired: -32042; readonly [code: number]: string;
};
export declare class ProtocolError extends McpError {
  constructor(code: number, message: string, data?: unknown);
}
export declare class ResourceNotFoundError extends ProtocolError {
  constructor(uri: string, message?: string);
}
export { UrlElicitationRequiredError } from './types.js';
export declare function isInitializeRequest(v: unknown): boolean;
export declare function isInitializedNotification(v: unknown): boolean;
export declare function isJSONRPCRequest(v: unknown): boolean;
export declare function isJSONRPCNotification(v: unknown): boolean;
export declare function isJSONRPCResponse(v: unknown): boolean;
export declare function isJSONRPCResultResponse(v: unknown): boolean;
export declare function isJSONRPCErrorResponse(v: unknown): boolean;
export declare function isTaskAugmentedRequestParams(v: unknown): boolean;
export declare function assertCompleteRequestPrompt(r: unknown): void;
export declare function assertCompleteRequestResourceTemplate(r: unknown): void;
export declare function getDisplayName(metadata: { name: string; title?: string; annotations?: { title?: string } }): string;
export declare function isCallToolResult(value: unknown): boolean;
export declare function mergeCapabilities<T extends object>(base: T, additional: Partial<T>): T;
