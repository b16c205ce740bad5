import { CliError } from "./io.js";

/**
 * A parsed command line: the command, its positional arguments and its `--flags`.
 *
 * @example
 * const args: ParsedArgs = parseArgs(["run", "tutor", "--thread", "t1", "--json"]);
 * args.command; // "run"
 * stringFlag(args, "thread"); // "t1"
 */
export interface ParsedArgs {
  command: string | undefined;
  positionals: string[];
  flags: Map<string, string | true>;
}

/** Flags that take a value (`--input '{…}'` or `--input={…}`); every other flag is a switch. */
const VALUE_FLAGS = new Set([
  "input",
  "thread",
  "config",
  "port",
  "host",
  "graph",
  "limit",
  "studio-dir",
  "watch",
  "workers",
  "health-port",
  "drain-ms",
]);
const SHORT: Record<string, string> = { c: "config", i: "input", t: "thread", p: "port", h: "help" };

/**
 * Splits argv (without `node` and the script) into a command, positionals and flags.
 *
 * @example
 * parseArgs(["run", "tutor", "--input", "{}", "--json"]); // { command: "run", positionals: ["tutor"], flags: { input: "{}", json: true } }
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith("--");
    const body = long ? arg.slice(2) : arg.slice(1);
    const eq = body.indexOf("=");
    const rawName = eq >= 0 ? body.slice(0, eq) : body;
    const name = long ? rawName : (SHORT[rawName] ?? rawName);
    if (!long && !SHORT[rawName]) throw new CliError(`Unknown option -${rawName}. Try trellis --help.`, 2);
    if (eq >= 0) {
      flags.set(name, body.slice(eq + 1));
    } else if (VALUE_FLAGS.has(name)) {
      const value = argv[i + 1];
      if (value === undefined) throw new CliError(`--${name} needs a value.`, 2);
      flags.set(name, value);
      i++;
    } else {
      flags.set(name, true);
    }
  }
  const [command, ...rest] = positionals;
  return { command, positionals: rest, flags };
}

/**
 * A flag's string value, or undefined. A switch given where a value is expected is a usage error.
 *
 * @example
 * stringFlag(args, "thread"); // "t-1"
 */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  if (value === true) throw new CliError(`--${name} needs a value.`, 2);
  return value;
}

/**
 * Fails with a usage error when a flag is not one the command knows.
 *
 * @example
 * checkFlags(args, ["input", "thread", "json"]);
 */
export function checkFlags(args: ParsedArgs, known: readonly string[]): void {
  for (const name of args.flags.keys()) {
    if (!known.includes(name) && name !== "config" && name !== "help") {
      throw new CliError(`trellis ${args.command}: unknown option --${name}.`, 2);
    }
  }
}
