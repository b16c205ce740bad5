export { PostgresSaver, type PostgresSaverOptions } from "./postgres-saver.js";
