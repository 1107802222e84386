// `oxmcp/server/completable.js` (the TS SDK v1 path).
export { completable } from '../../index.js';
