#!/usr/bin/env node
/**
 * The `trellis` command. See `trellis --help` and docs/cli.md.
 */
import { main } from "./main.js";

const code = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
// servers and streams closed: leave once stdout has flushed, even if a graph module left a timer behind
process.stdout.write("", () => process.exit(code));
