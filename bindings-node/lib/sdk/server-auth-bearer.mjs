// `oxmcp/server/auth/middleware/bearerAuth.js` (the TS SDK v1 path `@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js`).
import cjs from './server-auth-bearer.cjs';
export const { requireBearerAuth } = cjs;
