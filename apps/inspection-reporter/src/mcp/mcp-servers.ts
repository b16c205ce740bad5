import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mcpContentText } from "@trellis/agents";
import { type JsonSchema, type Tool, tool } from "@trellis/models";
import { MCP_SERVER_NAMES, type McpServerName, type McpServersConfig, resolveMcpServer } from "./mcp-config.js";

export type { McpServerConfig, McpServerName, McpServersConfig } from "./mcp-config.js";
export { bundledMcpServer, MCP_SERVER_NAMES, mcpServerScript, parseMcpConfig } from "./mcp-config.js";

/** How a server that exited is started again. */
export interface McpRestartPolicy {
  /** Milliseconds before the first restart after an exit. Default 100. */
  initialDelayMs?: number;
  /** Each further wait is the previous one times this. Default 2. */
  backoffFactor?: number;
  /** Longest wait between attempts. Default 10,000. */
  maxDelayMs?: number;
  /** A server up this long counts as healthy again: its next exit restarts after `initialDelayMs`. Default 10,000. */
  stableAfterMs?: number;
  /**
   * How long a tool call waits for a server that is down to come back before it fails with
   * {@link McpServerUnavailableError}. Default 15,000.
   */
  callWaitMs?: number;
}

/** Options of {@link startMcpServers}. */
export interface StartMcpServersOptions {
  /** Where the inspection server keeps its reports (`<dataDir>/reports`). */
  dataDir: string;
  /** Extra environment for every server process. */
  env?: Record<string, string>;
  /** Servers to run instead of the bundled ones (command, args, env per server); the rest are bundled. */
  servers?: McpServersConfig;
  /** How exited servers are restarted. */
  restart?: McpRestartPolicy;
}

/**
 * `starting` (first start), `up`, `restarting` (exited; a restart is scheduled or under way), `stopped`
 * (closed by the app).
 */
export type McpServerState = "starting" | "up" | "restarting" | "stopped";

/** What `/health` reports per server. */
export interface McpServerStatus {
  state: McpServerState;
  /** The server process while it runs. */
  pid: number | null;
  /** Restarts that succeeded since the app started. */
  restarts: number;
  /** When the server last exited on its own (ISO time). */
  lastExitAt?: string;
  /** Why the last restart attempt failed, while the server is not back. */
  lastError?: string;
}

/**
 * A tool call that could not reach its MCP server: the server exited while the call was in flight
 * (and the tool may have side effects, so it is not repeated blindly), or it did not come back in
 * time. `retryable`: calling again once the server is back is safe from the app's side.
 *
 * @example
 * catch (e) { if (e instanceof McpServerUnavailableError && e.retryable) retryLater(); }
 */
export class McpServerUnavailableError extends Error {
  readonly code = "MCP_SERVER_UNAVAILABLE";
  readonly retryable = true;
  readonly server: McpServerName;

  constructor(server: McpServerName, message: string) {
    super(message);
    this.name = "McpServerUnavailableError";
    this.server = server;
  }
}

/** The running MCP servers: a supervised client and its tools per server. */
export interface McpServers {
  /** The current client of each server (a new one after a restart). */
  clients: Readonly<Record<McpServerName, Client>>;
  /** The agent tools of each server; their calls go to whichever process serves the server now. */
  tools: Readonly<Record<McpServerName, readonly Tool[]>>;
  /** Each server's state, pid and restarts. */
  status(): Record<McpServerName, McpServerStatus>;
  /** True when every server is up. */
  healthy(): boolean;
  /** Restarts a server that is down at once, without waiting out the backoff; resolves once it is up. */
  restart(name: McpServerName): Promise<void>;
  /** Closes the clients, which ends the server processes; they are not restarted. */
  close(): Promise<void>;
}

interface Connection {
  client: Client;
  transport: StdioClientTransport;
  closed: boolean;
  upAt: number;
}

/** One MCP server process, restarted with backoff whenever it exits. */
class SupervisedServer {
  readonly name: McpServerName;
  #options: StartMcpServersOptions;
  #policy: Required<McpRestartPolicy>;
  #current: Connection | undefined;
  #state: McpServerState = "starting";
  #restarts = 0;
  #failures = 0;
  #lastExitAt: string | undefined;
  #lastError: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #starting: Promise<Connection> | undefined;
  #waiters = new Set<() => void>();

  constructor(name: McpServerName, options: StartMcpServersOptions) {
    this.name = name;
    this.#options = options;
    this.#policy = {
      initialDelayMs: 100,
      backoffFactor: 2,
      maxDelayMs: 10_000,
      stableAfterMs: 10_000,
      callWaitMs: 15_000,
      ...options.restart,
    };
  }

  get client(): Client {
    if (!this.#current || this.#current.closed) throw new McpServerUnavailableError(this.name, this.#downMessage());
    return this.#current.client;
  }

  status(): McpServerStatus {
    const status: McpServerStatus = {
      state: this.#state,
      pid: this.#current && !this.#current.closed ? this.#current.transport.pid : null,
      restarts: this.#restarts,
    };
    if (this.#lastExitAt) status.lastExitAt = this.#lastExitAt;
    if (this.#lastError && this.#state !== "up") status.lastError = this.#lastError;
    return status;
  }

  /** Starts the process and connects; the first start's failure is the caller's. */
  async start(): Promise<Client> {
    return (await this.#connect()).client;
  }

  async #connect(): Promise<Connection> {
    this.#starting ??= (async () => {
      const client = new Client({ name: `inspection-reporter/${this.name}`, version: "0.1.0" });
      const spec = resolveMcpServer(this.name, this.#options.servers);
      const transport = new StdioClientTransport({
        command: spec.command,
        args: spec.args ?? [],
        env: {
          ...getDefaultEnvironment(),
          ...this.#options.env,
          INSPECTION_DATA_DIR: this.#options.dataDir,
          ...spec.env,
        },
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
        stderr: "inherit",
      });
      const connection: Connection = { client, transport, closed: false, upAt: Date.now() };
      client.onclose = () => this.#exited(connection);
      try {
        await client.connect(transport);
      } catch (error) {
        connection.closed = true;
        await client.close().catch(() => undefined);
        throw error;
      }
      if (this.#state === "stopped") {
        connection.closed = true;
        await client.close().catch(() => undefined);
        throw new McpServerUnavailableError(this.name, `MCP server "${this.name}" was stopped.`);
      }
      connection.upAt = Date.now();
      this.#current = connection;
      this.#state = "up";
      this.#lastError = undefined;
      for (const wake of this.#waiters) wake();
      return connection;
    })().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /** The process of `connection` ended (killed, crashed, or closed by us). */
  #exited(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    if (this.#current !== connection || this.#state === "stopped") return;
    this.#lastExitAt = new Date().toISOString();
    if (Date.now() - connection.upAt >= this.#policy.stableAfterMs) this.#failures = 0;
    this.#state = "restarting";
    this.#schedule();
  }

  #schedule(): void {
    const p = this.#policy;
    const delay = Math.min(p.maxDelayMs, p.initialDelayMs * p.backoffFactor ** this.#failures);
    this.#failures += 1;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#attempt(), delay);
    this.#timer.unref();
  }

  async #attempt(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#state !== "restarting") return;
    try {
      await this.#connect();
      this.#restarts += 1;
    } catch (error) {
      if (this.#stateNow() === "stopped") return;
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#schedule();
    }
  }

  /** The state as it is now (read after an await, where the compiler's narrowing is stale). */
  #stateNow(): McpServerState {
    return this.#state;
  }

  async restartNow(): Promise<void> {
    if (this.#state === "stopped") throw new McpServerUnavailableError(this.name, this.#downMessage());
    if (this.#state === "up") return;
    if (this.#starting) {
      await this.#starting;
      return;
    }
    await this.#attempt();
    if (this.#stateNow() !== "up") throw new McpServerUnavailableError(this.name, this.#downMessage());
  }

  /** The connection to call on: the current one, or the next one after a restart (bounded wait). */
  async #ready(signal: AbortSignal | undefined): Promise<Connection> {
    if (this.#state === "up" && this.#current && !this.#current.closed) return this.#current;
    if (this.#state === "stopped") throw new McpServerUnavailableError(this.name, this.#downMessage());
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener("abort", aborted);
        resolve();
      };
      const aborted = () => {
        done();
        reject(signal?.reason);
      };
      const timer = setTimeout(done, this.#policy.callWaitMs);
      this.#waiters.add(done);
      signal?.addEventListener("abort", aborted, { once: true });
    });
    if (this.#state === "up" && this.#current && !this.#current.closed) return this.#current;
    throw new McpServerUnavailableError(this.name, this.#downMessage());
  }

  #downMessage(): string {
    const why = this.#lastError ? ` (last restart attempt: ${this.#lastError})` : "";
    return this.#state === "stopped"
      ? `MCP server "${this.name}" is stopped.`
      : `MCP server "${this.name}" is not available: it exited and is being restarted${why}. Retry the call shortly.`;
  }

  /**
   * Calls a tool on the server. A call made while the server is down waits for the restart. A call in
   * flight when the process exits is repeated once on the restarted server when `repeatable` (the tool
   * declares itself read-only or idempotent), else it fails with a retryable
   * {@link McpServerUnavailableError}: the server may or may not have done its work.
   */
  async callTool(
    toolName: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal | undefined; repeatable: boolean },
  ): Promise<Awaited<ReturnType<Client["callTool"]>>> {
    for (let attempt = 1; ; attempt++) {
      const connection = await this.#ready(options.signal);
      try {
        return await connection.client.callTool(
          { name: toolName, arguments: args },
          undefined,
          options.signal ? { signal: options.signal } : {},
        );
      } catch (error) {
        if (options.signal?.aborted || !connection.closed) throw error;
        if (options.repeatable && attempt === 1) continue;
        throw new McpServerUnavailableError(
          this.name,
          `MCP server "${this.name}" exited while ${toolName} was running, so it is not known whether the call took effect; the server is being restarted. Retry the call.`,
        );
      }
    }
  }

  async close(): Promise<void> {
    this.#state = "stopped";
    clearTimeout(this.#timer);
    for (const wake of this.#waiters) wake();
    const current = this.#current;
    if (current) {
      current.closed = true;
      await current.client.close().catch(() => undefined);
    }
  }
}

interface McpToolSpec {
  name: string;
  description?: string | undefined;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean | undefined; idempotentHint?: boolean | undefined } | undefined;
}

/** Agent tools for a supervised server: each call goes through {@link SupervisedServer.callTool}. */
async function supervisedTools(server: SupervisedServer): Promise<Tool[]> {
  const specs: McpToolSpec[] = [];
  let cursor: string | undefined;
  do {
    const page = await server.client.listTools(cursor === undefined ? {} : { cursor });
    specs.push(...(page.tools as McpToolSpec[]));
    cursor = page.nextCursor;
  } while (cursor);
  return specs.map((spec) => {
    const repeatable = spec.annotations?.readOnlyHint === true || spec.annotations?.idempotentHint === true;
    return tool({
      name: spec.name.slice(0, 64),
      description: spec.description?.trim() || `MCP tool ${spec.name}`,
      parameters: { ...(spec.inputSchema as JsonSchema), type: "object" },
      fn: async (args, ctx) => {
        const result = await server.callTool(spec.name, args, { signal: ctx.signal, repeatable });
        const text = mcpContentText(result.content);
        if (result.isError) throw new Error(text || `MCP tool ${spec.name} failed`);
        if (result.structuredContent !== undefined) return result.structuredContent;
        return text;
      },
    });
  });
}

/**
 * Starts the three MCP servers as child processes over stdio — the bundled scripts, or the command,
 * args and env that `servers` gives for a name —, connects an MCP client to each and
 * loads their tools. The servers are supervised: one that exits (crash, kill) is started again with
 * exponential backoff, tool calls made meanwhile wait for it, and `status()` tells `/health` how each
 * server is. If one fails to start the first time, the others are closed again.
 *
 * @example
 * const mcp = await startMcpServers({ dataDir: ".trellis/inspection-reporter" });
 * mcp.tools.regulation.map((t) => t.name); // ["search_regulations", "get_regulation"]
 * mcp.status().regulation.state; // "up"
 * await mcp.close();
 */
export async function startMcpServers(options: StartMcpServersOptions): Promise<McpServers> {
  const servers = Object.fromEntries(
    MCP_SERVER_NAMES.map((name) => [name, new SupervisedServer(name, options)]),
  ) as Record<McpServerName, SupervisedServer>;
  const all = Object.values(servers);
  const closeAll = async () => {
    await Promise.allSettled(all.map((s) => s.close()));
  };
  try {
    const tools = {} as Record<McpServerName, readonly Tool[]>;
    await Promise.all(
      all.map(async (server) => {
        await server.start();
        tools[server.name] = await supervisedTools(server);
      }),
    );
    const clients = {} as Record<McpServerName, Client>;
    for (const server of all)
      Object.defineProperty(clients, server.name, { get: () => server.client, enumerable: true });
    return {
      clients,
      tools,
      status: () => Object.fromEntries(all.map((s) => [s.name, s.status()])) as Record<McpServerName, McpServerStatus>,
      healthy: () => all.every((s) => s.status().state === "up"),
      restart: (name) => servers[name].restartNow(),
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
