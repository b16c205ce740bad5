#!/usr/bin/env node
/**
 * The `infra-agent` executable. Ctrl-C stops the run in progress; the request keeps its last
 * checkpoint and can be continued with `--thread`.
 */
import { runCli } from "../cli/main.js";

const controller = new AbortController();
process.once("SIGINT", () => controller.abort(new Error("interrupted (Ctrl-C)")));

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
