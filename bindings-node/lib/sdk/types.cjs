'use strict';
/**
 * `oxmcp/types.js`: the names `@modelcontextprotocol/sdk/types.js` exports, so that servers importing
 * request/notification schemas, `McpError`, `ErrorCode` and the protocol constants port by changing
 * the package name.
 *
 * A request or notification schema carries its `method` (what `setRequestHandler` and
 * `setNotificationHandler` key on) and, when zod v4 is installed, is a zod object with
 * `method: z.literal(...)`. The other schemas are permissive zod objects: they parse what the
 * client sent without re-checking the spec's shape (the core has already validated what it
 * relies on). The table below lists each exported name and the method it stands for
 * ('result' / 'other' for the rest); tests/node/sdk-exports.test.mjs checks it against the
 * installed SDK.
 */
const { loadZod } = require('../schema.cjs');
const protocol = require('./protocol.cjs');

const SCHEMAS = {
  AnnotationsSchema: "other",
  AudioContentSchema: "other",
  BaseMetadataSchema: "other",
  BlobResourceContentsSchema: "other",
  BooleanSchemaSchema: "other",
  CallToolRequestParamsSchema: "other",
  CallToolRequestSchema: "tools/call",
  CallToolResultSchema: "result",
  CancelTaskRequestSchema: "tasks/cancel",
  CancelTaskResultSchema: "result",
  CancelledNotificationParamsSchema: "other",
  CancelledNotificationSchema: "notifications/cancelled",
  ClientCapabilitiesSchema: "other",
  ClientNotificationSchema: "other",
  ClientRequestSchema: "other",
  ClientResultSchema: "result",
  ClientTasksCapabilitySchema: "other",
  CompatibilityCallToolResultSchema: "result",
  CompleteRequestParamsSchema: "other",
  CompleteRequestSchema: "completion/complete",
  CompleteResultSchema: "result",
  ContentBlockSchema: "other",
  CreateMessageRequestParamsSchema: "other",
  CreateMessageRequestSchema: "sampling/createMessage",
  CreateMessageResultSchema: "result",
  CreateMessageResultWithToolsSchema: "other",
  CreateTaskResultSchema: "result",
  CursorSchema: "other",
  ElicitRequestFormParamsSchema: "other",
  ElicitRequestParamsSchema: "other",
  ElicitRequestSchema: "elicitation/create",
  ElicitRequestURLParamsSchema: "other",
  ElicitResultSchema: "result",
  ElicitationCompleteNotificationParamsSchema: "other",
  ElicitationCompleteNotificationSchema: "notifications/elicitation/complete",
  EmbeddedResourceSchema: "other",
  EmptyResultSchema: "result",
  EnumSchemaSchema: "other",
  GetPromptRequestParamsSchema: "other",
  GetPromptRequestSchema: "prompts/get",
  GetPromptResultSchema: "result",
  GetTaskPayloadRequestSchema: "tasks/result",
  GetTaskPayloadResultSchema: "result",
  GetTaskRequestSchema: "tasks/get",
  GetTaskResultSchema: "result",
  IconSchema: "other",
  IconsSchema: "other",
  ImageContentSchema: "other",
  ImplementationSchema: "other",
  InitializeRequestParamsSchema: "other",
  InitializeRequestSchema: "initialize",
  InitializeResultSchema: "result",
  InitializedNotificationSchema: "notifications/initialized",
  JSONRPCErrorResponseSchema: "other",
  JSONRPCErrorSchema: "other",
  JSONRPCMessageSchema: "other",
  JSONRPCNotificationSchema: "other",
  JSONRPCRequestSchema: "other",
  JSONRPCResponseSchema: "other",
  JSONRPCResultResponseSchema: "other",
  LegacyTitledEnumSchemaSchema: "other",
  ListChangedOptionsBaseSchema: "other",
  ListPromptsRequestSchema: "prompts/list",
  ListPromptsResultSchema: "result",
  ListResourceTemplatesRequestSchema: "resources/templates/list",
  ListResourceTemplatesResultSchema: "result",
  ListResourcesRequestSchema: "resources/list",
  ListResourcesResultSchema: "result",
  ListRootsRequestSchema: "roots/list",
  ListRootsResultSchema: "result",
  ListTasksRequestSchema: "tasks/list",
  ListTasksResultSchema: "result",
  ListToolsRequestSchema: "tools/list",
  ListToolsResultSchema: "result",
  LoggingLevelSchema: "other",
  LoggingMessageNotificationParamsSchema: "other",
  LoggingMessageNotificationSchema: "notifications/message",
  ModelHintSchema: "other",
  ModelPreferencesSchema: "other",
  MultiSelectEnumSchemaSchema: "other",
  NotificationSchema: "other",
  NumberSchemaSchema: "other",
  PaginatedRequestParamsSchema: "other",
  PaginatedRequestSchema: "other",
  PaginatedResultSchema: "result",
  PingRequestSchema: "ping",
  PrimitiveSchemaDefinitionSchema: "other",
  ProgressNotificationParamsSchema: "other",
  ProgressNotificationSchema: "notifications/progress",
  ProgressSchema: "other",
  ProgressTokenSchema: "other",
  PromptArgumentSchema: "other",
  PromptListChangedNotificationSchema: "notifications/prompts/list_changed",
  PromptMessageSchema: "other",
  PromptReferenceSchema: "other",
  PromptSchema: "other",
  ReadResourceRequestParamsSchema: "other",
  ReadResourceRequestSchema: "resources/read",
  ReadResourceResultSchema: "result",
  RelatedTaskMetadataSchema: "other",
  RequestIdSchema: "other",
  RequestSchema: "other",
  ResourceContentsSchema: "other",
  ResourceLinkSchema: "other",
  ResourceListChangedNotificationSchema: "notifications/resources/list_changed",
  ResourceReferenceSchema: "other",
  ResourceRequestParamsSchema: "other",
  ResourceSchema: "other",
  ResourceTemplateReferenceSchema: "other",
  ResourceTemplateSchema: "other",
  ResourceUpdatedNotificationParamsSchema: "other",
  ResourceUpdatedNotificationSchema: "notifications/resources/updated",
  ResultSchema: "result",
  RoleSchema: "other",
  RootSchema: "other",
  RootsListChangedNotificationSchema: "notifications/roots/list_changed",
  SamplingContentSchema: "other",
  SamplingMessageContentBlockSchema: "other",
  SamplingMessageSchema: "other",
  ServerCapabilitiesSchema: "other",
  ServerNotificationSchema: "other",
  ServerRequestSchema: "other",
  ServerResultSchema: "result",
  ServerTasksCapabilitySchema: "other",
  SetLevelRequestParamsSchema: "other",
  SetLevelRequestSchema: "logging/setLevel",
  SingleSelectEnumSchemaSchema: "other",
  StringSchemaSchema: "other",
  SubscribeRequestParamsSchema: "other",
  SubscribeRequestSchema: "resources/subscribe",
  TaskAugmentedRequestParamsSchema: "other",
  TaskCreationParamsSchema: "other",
  TaskMetadataSchema: "other",
  TaskSchema: "other",
  TaskStatusNotificationParamsSchema: "other",
  TaskStatusNotificationSchema: "notifications/tasks/status",
  TaskStatusSchema: "other",
  TextContentSchema: "other",
  TextResourceContentsSchema: "other",
  TitledMultiSelectEnumSchemaSchema: "other",
  TitledSingleSelectEnumSchemaSchema: "other",
  ToolAnnotationsSchema: "other",
  ToolChoiceSchema: "other",
  ToolExecutionSchema: "other",
  ToolListChangedNotificationSchema: "notifications/tools/list_changed",
  ToolResultContentSchema: "other",
  ToolSchema: "other",
  ToolUseContentSchema: "other",
  UnsubscribeRequestParamsSchema: "other",
  UnsubscribeRequestSchema: "resources/unsubscribe",
  UntitledMultiSelectEnumSchemaSchema: "other",
  UntitledSingleSelectEnumSchemaSchema: "other",
};

/** A schema without zod: `{ method?, parse, safeParse }` (values pass through). */
function plainSchema(name, method) {
  return Object.freeze({
    name,
    method,
    parse: (v) => v,
    safeParse: (v) => ({ success: true, data: v }),
    async parseAsync(v) { return v; },
    async safeParseAsync(v) { return { success: true, data: v }; },
  });
}

function build(name, tag) {
  const method = tag === 'result' || tag === 'other' ? undefined : tag;
  const z = loadZod();
  if (!z || typeof z.looseObject !== 'function') return plainSchema(name, method);
  if (method !== undefined) {
    const s = z.looseObject({ method: z.literal(method), params: z.optional(z.looseObject({})) });
    Object.defineProperty(s, 'method', { value: method, enumerable: false });
    return s;
  }
  return tag === 'result' ? z.looseObject({ _meta: z.optional(z.looseObject({})) }) : z.any();
}

const schemas = {};
for (const [name, tag] of Object.entries(SCHEMAS)) {
  let v;
  Object.defineProperty(schemas, name, { enumerable: true, get: () => (v ??= build(name, tag)) });
}

// The light names (lib/sdk/protocol.cjs), without the SDK's `mergeCapabilities` (not in types.js).
const { mergeCapabilities, ...light } = protocol;
module.exports = { ...light, SCHEMA_NAMES: Object.keys(SCHEMAS) };
for (const name of Object.keys(SCHEMAS)) Object.defineProperty(module.exports, name, { enumerable: true, get: () => schemas[name] });
