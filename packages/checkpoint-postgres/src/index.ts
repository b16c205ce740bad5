export { PostgresSaver, type PostgresSaverOptions } from "./postgres-saver.js";
export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
