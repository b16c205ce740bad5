/**
 * The command line of `infra-agent`: `pipeline` (interactive, or one request with flags), `graph`,
 * `help`.
 */
import { parseArgs } from "node:util";
import { Environment } from "../contracts.js";

/**
 * What `infra-agent pipeline` was asked to do.
 *
 * @example
 * parseCli(["pipeline", "--env", "prd", "--request", "create an S3 bucket for logs", "--approve-plan"]);
 */
export interface PipelineCommand {
  command: "pipeline";
  environment: Environment;
  dryRun: boolean;
  /** One request, non-interactive. */
  request: string | undefined;
  /** Continue a request paused at a gate, non-interactive. */
  thread: string | undefined;
  /** Answers for the gates; undefined asks (interactive) or stops there (non-interactive). */
  approvePlan: boolean | undefined;
  approveDeploy: boolean | undefined;
  json: boolean;
  dataDir: string | undefined;
  db: string | undefined;
}

/**
 * A parsed command line.
 *
 * @example
 * const cmd = parseCli(process.argv.slice(2));
 * if (cmd.command === "graph") …
 */
export type CliCommand = PipelineCommand | { command: "graph" } | { command: "help" };

/**
 * A command line that cannot be run; the message says what to fix.
 *
 * @example
 * try { parseCli(["pipeline", "--env", "qa"]); } catch (e) { if (e instanceof UsageError) console.error(e.message); }
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * The help text.
 *
 * @example
 * process.stdout.write(USAGE);
 */
export const USAGE = `Usage:
  infra-agent pipeline [--env dev|tst|prd] [--dry-run]        interactive session
  infra-agent pipeline --env ENV --request TEXT [options]      one request, no prompts
  infra-agent pipeline --thread REQUEST_ID [options]           answer a request waiting at a gate
  infra-agent graph                                            print the pipeline as Mermaid

Options:
  --env dev|tst|prd       target environment (default dev)
  --dry-run               plan and review only; skip deployment
  --request TEXT          run one request non-interactively
  --thread REQUEST_ID     continue a request paused at an approval gate
  --approve-plan          answer the plan gate with yes   (--reject-plan: no)
  --approve-deploy        answer the deploy gate with yes (--reject-deploy: no)
  --json                  print one JSON result instead of the streamed output (with --request/--thread)
  --data-dir DIR          data directory (default $INFRA_AGENT_DATA_DIR or ./.trellis/infra-pipeline)
  --db FILE               SQLite checkpoint file (default <data dir>/checkpoints.sqlite; ":memory:" for none)

Exit codes: 0 done, 1 failed, 2 usage or configuration error, 3 waiting for approval, 4 rejected.
Models: offline by default; set INFRA_AGENT_MODEL_PROVIDER and INFRA_AGENT_MODEL (or TRELLIS_MODEL_*) for an LLM.
`;

/**
 * Parses `infra-agent` arguments (without the node and script paths).
 *
 * @example
 * parseCli(["graph"]); // { command: "graph" }
 */
export function parseCli(argv: readonly string[]): CliCommand {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h")
    return { command: "help" };
  if (command === "graph") {
    if (rest.length > 0) throw new UsageError(`"graph" takes no arguments, got ${rest.join(" ")}.`);
    return { command: "graph" };
  }
  if (command !== "pipeline") throw new UsageError(`Unknown command "${command}". Commands: pipeline, graph, help.`);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      strict: true,
      allowPositionals: false,
      options: {
        env: { type: "string" },
        "dry-run": { type: "boolean" },
        request: { type: "string" },
        thread: { type: "string" },
        "approve-plan": { type: "boolean" },
        "reject-plan": { type: "boolean" },
        "approve-deploy": { type: "boolean" },
        "reject-deploy": { type: "boolean" },
        json: { type: "boolean" },
        "data-dir": { type: "string" },
        db: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { command: "help" };
  const env = Environment.safeParse(values.env ?? "dev");
  if (!env.success) throw new UsageError(`--env must be dev, tst or prd, got "${String(values.env)}".`);
  const decision = (yes: string, no: string): boolean | undefined => {
    if (values[yes] && values[no]) throw new UsageError(`--${yes} and --${no} contradict each other.`);
    return values[yes] ? true : values[no] ? false : undefined;
  };
  const request = values.request as string | undefined;
  const thread = values.thread as string | undefined;
  if (request !== undefined && request.trim() === "") throw new UsageError("--request needs the text of a request.");
  if (request !== undefined && thread !== undefined)
    throw new UsageError("Use --request (a new request) or --thread (an existing one), not both.");
  if (values.json && request === undefined && thread === undefined)
    throw new UsageError("--json needs --request or --thread.");
  return {
    command: "pipeline",
    environment: env.data,
    dryRun: values["dry-run"] === true,
    request,
    thread,
    approvePlan: decision("approve-plan", "reject-plan"),
    approveDeploy: decision("approve-deploy", "reject-deploy"),
    json: values.json === true,
    dataDir: values["data-dir"] as string | undefined,
    db: values.db as string | undefined,
  };
}
