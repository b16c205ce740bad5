export { SqliteSaver, type SqliteSaverOptions } from "./sqlite-saver.js";
export { SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
