/**
 * Azurite, the Azure Storage emulator (npm `azurite`), started by a test as a child process: the blob
 * service only, on a free loopback port, in memory (its workspace a temporary folder), with the
 * emulator's well-known development account.
 * @internal
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The emulator's documented development account (not a secret: every Azurite has it). */
const ACCOUNT = "devstoreaccount1";
const KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/** A running Azurite blob service. */
export interface Azurite {
  /** A connection string for the development account on this emulator. */
  connectionString: string;
  /** `http://127.0.0.1:<port>/devstoreaccount1` */
  blobEndpoint: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts Azurite's blob service and waits until it answers.
 *
 * @example
 * const azurite = await startAzurite();
 * try { … azurite.connectionString … } finally { await azurite.stop(); }
 */
export async function startAzurite(): Promise<Azurite> {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve("azurite/package.json")), "dist", "src", "blob", "main.js");
  const workspace = mkdtempSync(join(tmpdir(), "twi-azurite-"));
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      bin,
      "--blobHost",
      "127.0.0.1",
      "--blobPort",
      String(port),
      "--inMemoryPersistence",
      "--silent",
      "--skipApiVersionCheck",
    ],
    // in memory; anything it still writes lands in its own temporary folder
    { stdio: ["ignore", "pipe", "pipe"], cwd: workspace },
  );
  let output = "";
  child.stdout?.on("data", (d) => (output += String(d)));
  child.stderr?.on("data", (d) => (output += String(d)));
  const blobEndpoint = `http://127.0.0.1:${port}/${ACCOUNT}`;
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`Azurite exited with ${child.exitCode}: ${output}`);
    const up = await fetch(`${blobEndpoint}?comp=list`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (attempt > 300) throw new Error(`Azurite did not answer on ${blobEndpoint}: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${ACCOUNT};AccountKey=${KEY};BlobEndpoint=${blobEndpoint};`,
    blobEndpoint,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        // in memory: nothing to flush, so no graceful shutdown to wait for
        child.kill("SIGKILL");
        await exited;
      }
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}
