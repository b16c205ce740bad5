export { type ParsedArgs, parseArgs } from "./args.js";
export { devCommand } from "./commands/dev.js";
export { drawCommand, stateCommand, threadsCommand } from "./commands/inspect.js";
export { describeError, EXIT_PAUSED, runCommand } from "./commands/run.js";
export { serveCommand, workerCommand } from "./commands/serve.js";
export { CliError, type CliIo, LineReader } from "./io.js";
export { HELP, main } from "./main.js";
export { type BreakpointAnswer, breakpointAnswer, breakpointQuestion } from "./pause-prompts.js";
export { findStudioDir, studioFiles } from "./studio-files.js";
