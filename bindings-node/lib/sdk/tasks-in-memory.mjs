// `oxmcp/experimental/tasks/stores/in-memory.js` (the TS SDK v1 path of the same name).
import cjs from './tasks-in-memory.cjs';
export const { InMemoryTaskStore, InMemoryTaskMessageQueue } = cjs;
