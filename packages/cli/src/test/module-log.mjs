// `node --import ./module-log.mjs`: records the modules a process imports (see module-log-hooks.mjs).
import { register } from "node:module";

register("./module-log-hooks.mjs", import.meta.url);
