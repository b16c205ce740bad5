/**
 * The deployment executor behind the deploy gate: Terraform (or OpenTofu) run on the reviewed files —
 * `init`, `plan -out`, `apply` of that saved plan — with each command's output and exit code captured.
 * Without an executor a deployment is refused, never simulated.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { type StateBackend, stateBackendFromEnv } from "./state-backend.js";

/**
 * The binary that deploys: `terraform` or `tofu`, and where it is.
 *
 * @example
 * const executor: DeployExecutor = { kind: "terraform", bin: "/usr/local/bin/terraform" };
 */
export interface DeployExecutor {
  kind: "terraform" | "tofu";
  bin: string;
  /**
   * Where it deploys: `files` (default) applies the reviewed files as they are (their providers, their
   * cloud); `local` applies them as Terraform's built-in `terraform_data` resources in a temporary
   * directory — no registry, no cloud — and checks the criteria against that state
   * (`INFRA_AGENT_TF_TARGET=local`, see `local-target.ts`).
   */
  target?: "files" | "local";
  /** False: `init` and `plan` only, nothing applied — the outcome is `planned` (`INFRA_AGENT_TF_APPLY=false`). */
  apply?: boolean;
  /** Where the local target keeps each environment's state (`INFRA_AGENT_TF_STATE`, see `state-backend.ts`). */
  state?: StateBackend;
}

/**
 * How the environment chose the executor: one found, or why there is none.
 *
 * @example
 * const choice = findExecutor(process.env);
 * if (!choice.executor) console.log(choice.reason);
 */
export type ExecutorChoice =
  | { executor: DeployExecutor; reason?: undefined }
  | { executor?: undefined; reason: string };

/** One command the executor ran. */
export interface ExecutorStep {
  command: string;
  exit_code: number;
  /** stdout and stderr, the last 4000 characters. */
  output: string;
}

const OUTPUT_CHARS = 4000;

function onPath(name: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const candidates = isAbsolute(name)
    ? [name]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, name));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Picks the executor: `INFRA_AGENT_EXECUTOR` = `none` (refuse every deployment), `terraform`, `tofu`, or
 * a path to either binary; unset or `auto` takes `terraform`, then `tofu`, from `PATH`.
 * `INFRA_AGENT_TF_TARGET` = `files` (default: the reviewed files, their providers and cloud) or `local`
 * (the same resources as built-in `terraform_data`, applied offline); anything else is refused.
 * `INFRA_AGENT_TF_APPLY` = `true` (default) or `false` (plan only: `init` and `plan`, nothing applied).
 *
 * @example
 * findExecutor({ PATH: "/usr/local/bin" }); // { executor: { kind: "terraform", bin: "/usr/local/bin/terraform" } } when installed
 * findExecutor({ INFRA_AGENT_EXECUTOR: "none" }); // { reason: "INFRA_AGENT_EXECUTOR is none" }
 */
export function findExecutor(env: Readonly<Record<string, string | undefined>>): ExecutorChoice {
  const wanted = (env.INFRA_AGENT_EXECUTOR ?? "").trim() || "auto";
  if (wanted === "none") return { reason: "INFRA_AGENT_EXECUTOR is none: deployments are switched off" };
  const target = (env.INFRA_AGENT_TF_TARGET ?? "").trim() || "files";
  if (target !== "files" && target !== "local") {
    return {
      reason: `INFRA_AGENT_TF_TARGET is "${target}": use files (the reviewed files) or local (terraform_data, offline)`,
    };
  }
  const applyText = (env.INFRA_AGENT_TF_APPLY ?? "").trim().toLowerCase() || "true";
  if (applyText !== "true" && applyText !== "false") {
    return { reason: `INFRA_AGENT_TF_APPLY is "${env.INFRA_AGENT_TF_APPLY}": use true (apply) or false (plan only)` };
  }
  const state = stateBackendFromEnv(env);
  if (!state.backend) return { reason: state.reason };
  const names = wanted === "auto" ? ["terraform", "tofu"] : [wanted];
  for (const name of names) {
    const bin = onPath(name, env);
    if (bin) {
      const kind = /tofu[^/]*$/.test(bin) ? "tofu" : "terraform";
      return {
        executor: {
          kind,
          bin,
          ...(target === "local" ? { target, state: state.backend } : {}),
          ...(applyText === "false" ? { apply: false } : {}),
        },
      };
    }
  }
  return {
    reason:
      wanted === "auto"
        ? "neither terraform nor tofu is on PATH"
        : `INFRA_AGENT_EXECUTOR names ${wanted}, which is not an executable on PATH`,
  };
}

/**
 * Runs one command in `dir` and captures its exit code and output (stdout and stderr, the last 4000
 * characters; all of it with `fullOutput`, e.g. `show -json`).
 *
 * @example
 * const step = await runCommand("/usr/local/bin/terraform", ["version"], dir, undefined);
 */
export function runCommand(
  bin: string,
  args: string[],
  cwd: string,
  signal: AbortSignal | undefined,
  options: { fullOutput?: boolean } = {},
): Promise<ExecutorStep> {
  return new Promise((resolve) => {
    let output = "";
    const keep = (chunk: Buffer) => {
      output = output + chunk.toString("utf8");
      if (!options.fullOutput) output = output.slice(-OUTPUT_CHARS);
    };
    const child = spawn(bin, args, {
      cwd,
      env: { ...process.env, TF_IN_AUTOMATION: "1", TF_INPUT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      ...(signal ? { signal } : {}),
    });
    child.stdout.on("data", keep);
    child.stderr.on("data", options.fullOutput ? () => {} : keep);
    const command = [bin.split("/").at(-1) ?? bin, ...args].join(" ");
    child.on("error", (error) =>
      resolve({ command, exit_code: -1, output: `${output}${error.message}`.slice(-OUTPUT_CHARS) }),
    );
    child.on("close", (code) => resolve({ command, exit_code: code ?? -1, output }));
  });
}

/** The commands of a deployment: `init`, `plan -out=tfplan`, and `apply tfplan` unless the executor only plans. */
export function deployCommands(executor: DeployExecutor): string[][] {
  const commands = [
    ["init", "-input=false", "-no-color"],
    ["plan", "-input=false", "-no-color", "-out=tfplan"],
  ];
  if (executor.apply !== false) commands.push(["apply", "-input=false", "-no-color", "-auto-approve", "tfplan"]);
  return commands;
}

/**
 * Runs `init`, `plan -out=tfplan` and `apply tfplan` in `dir` (no `apply` when the executor only
 * plans), stopping at the first command that fails; `applied` is false unless `apply` exited 0.
 *
 * @example
 * const { applied, steps } = await applyWith(executor, "/data/artifacts/req-1");
 */
export async function applyWith(
  executor: DeployExecutor,
  dir: string,
  signal?: AbortSignal,
): Promise<{ applied: boolean; steps: ExecutorStep[] }> {
  const steps: ExecutorStep[] = [];
  for (const args of deployCommands(executor)) {
    const step = await runCommand(executor.bin, args, dir, signal);
    steps.push(step);
    if (step.exit_code !== 0) return { applied: false, steps };
  }
  return { applied: executor.apply !== false, steps };
}
