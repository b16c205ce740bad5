export { RedisSaver, type RedisSaverOptions } from "./redis-saver.js";
