// `oxmcp/server/completable.js` (the TS SDK v1 path).
import cjs from './completable.cjs';
export const { completable } = cjs;
