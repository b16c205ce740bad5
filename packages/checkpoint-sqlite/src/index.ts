export { SqliteSaver, type SqliteSaverOptions } from "./sqlite-saver.js";
