// `oxmcp/server/index.js`: the TS SDK v1 path `@modelcontextprotocol/sdk/server/index.js`.
import cjs from './server-index.cjs';
export const { Server } = cjs;
