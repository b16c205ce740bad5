import { type ParsedArgs, parseArgs } from "./args.js";
import { devCommand } from "./commands/dev.js";
import { drawCommand, stateCommand, threadsCommand } from "./commands/inspect.js";
import { describeError, runCommand } from "./commands/run.js";
import { serveCommand, workerCommand } from "./commands/serve.js";
import { CliError, type CliIo } from "./io.js";

/**
 * The CLI's help text.
 *
 * @example
 * process.stdout.write(HELP);
 */
export const HELP = `trellis — run, serve and inspect Trellis graphs

Usage: trellis <command> [options]

Commands:
  dev                     server + studio; restarts when a graph's source or trellis.json changes
  serve                   server + studio (the studio at /studio)
  worker                  execute queued runs without HTTP (scale-out: Postgres + Redis);
                          --health-port <n>: GET /health; --drain-ms <n>: SIGTERM drain (10000)
  run <graph>             run a graph here, answering its pauses in the terminal
      key=value …           input keys, each read as its type in the graph's schema: dry_run=true
      --input <json>        input state, e.g. '{"request":"lockout procedure"}'
      --thread <id>         thread to use or continue (default: a new one)
      --json                one JSON object per line, for scripts (answers still read from stdin)
  draw <graph>            the graph as a Mermaid flowchart (--json: nodes and edges)
  threads                 threads with their status (--graph <id>, --limit <n>, --json)
  state <thread>          a thread's state (--history: every checkpoint; --json)

Options for every command:
  -c, --config <path>     the config file (default: ./trellis.json)
  -h, --help              this help
Server options: --port <n> (or PORT), --host <h>, --studio-dir <dir>, --no-studio,
  --workers <n> (runs executed here; default: none with a Redis queue, else the queue's concurrency)

Exit codes: 0 done, 1 failed, 2 bad command line, 3 run left paused (no answer).
`;

/**
 * Runs one `trellis` command with the given streams and returns its exit code. Errors are written to
 * stderr in plain words, never as a stack trace (set TRELLIS_DEBUG=1 for one).
 *
 * @example
 * const code = await main(["draw", "approval-flow"], { stdin, stdout, stderr, env: process.env, cwd: process.cwd() });
 */
export async function main(argv: readonly string[], io: CliIo, signal?: AbortSignal): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
    if (args.command === undefined || args.command === "help" || args.flags.get("help") === true) {
      io.stdout.write(HELP);
      return args.command === undefined && args.flags.get("help") !== true ? 2 : 0;
    }
    switch (args.command) {
      case "run":
        return await runCommand(args, io);
      case "draw":
        return await drawCommand(args, io);
      case "threads":
        return await threadsCommand(args, io);
      case "state":
        return await stateCommand(args, io);
      case "serve":
        return await serveCommand(args, io, signal);
      case "worker":
        return await workerCommand(args, io, signal);
      case "dev":
        return await devCommand(args, io, signal);
      default:
        throw new CliError(
          `Unknown command "${args.command}". Commands: dev, serve, worker, run, draw, threads, state.`,
          2,
        );
    }
  } catch (error) {
    const code = error instanceof CliError ? error.exitCode : 1;
    io.stderr.write(`trellis: ${describeError(error)}\n`);
    if (io.env.TRELLIS_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    return code;
  }
}
