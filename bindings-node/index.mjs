// ESM entry: re-exports the CommonJS build so ESM and CJS users share one
// `Server` class (no dual-package hazard) and one native module instance.
import cjs from './index.cjs';

export const {
  Server,
  McpServer,
  ResourceTemplate,
  completable,
  ToolError,
  McpError,
  ErrorCode,
  RegistrationError,
  Context,
  InMemoryClient,
  text,
  image,
  audio,
  resource,
  resourceLink,
  parseServeArgs,
  runFromArgs,
  registerAppTool,
  registerAppResource,
  RESOURCE_MIME_TYPE,
} = cjs;
export default cjs;
