// `oxmcp/experimental/tasks/stores/in-memory.js`: the TS SDK v1 path of the same name.
export { InMemoryTaskStore, InMemoryTaskMessageQueue } from './experimental.js';
