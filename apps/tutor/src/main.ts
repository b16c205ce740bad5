import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { GraphAgent, type GraphAgentOptions, graphAgentOptionsFromEnv } from "./graph-agent.js";
import { createTutorApp } from "./http-app.js";

/**
 * A running standalone tutor server.
 *
 * @example
 * const server = await startTutorServer({ port: 0 });
 * console.log(server.url); // http://127.0.0.1:54321
 * await server.close();
 */
export interface TutorServer {
  url: string;
  agent: GraphAgent;
  close(): Promise<void>;
}

/**
 * Starts the tutor on its own: one {@link GraphAgent} for every request, the routes at the root and
 * under `/apps/tutor/` (the path the Trellis server mounts them on).
 *
 * @example
 * await startTutorServer({ port: 8000, agent: { dbPath: "./tutor.sqlite" } });
 */
export async function startTutorServer(
  options: { port?: number; host?: string; agent?: GraphAgentOptions } = {},
): Promise<TutorServer> {
  const agent = GraphAgent.create(options.agent ?? graphAgentOptionsFromEnv());
  const routes = createTutorApp(agent);
  const app = new Hono().route("/apps/tutor", routes).route("/", routes);
  const host = options.host ?? "127.0.0.1";
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>((resolve) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 8000, hostname: host }, (info: AddressInfo) =>
      resolve({ server: s, port: info.port }),
    );
  });
  return {
    url: `http://${host}:${port}`,
    agent,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          agent.close();
          resolve();
        });
      }),
  };
}

/**
 * The `trellis-tutor` command: reads `PORT` (default 8000), `HOST` and the settings of
 * `graphAgentOptionsFromEnv`, starts the server and stops it on SIGINT/SIGTERM.
 *
 * @example
 * await main(process.env);
 */
export async function main(env: Record<string, string | undefined> = process.env): Promise<TutorServer> {
  const port = env.PORT ? Number(env.PORT) : 8000;
  const server = await startTutorServer({
    port,
    ...(env.HOST ? { host: env.HOST } : {}),
    agent: graphAgentOptionsFromEnv(env),
  });
  console.log(`Trellis tutor (${server.agent.provider}) listening on ${server.url} — POST /chat, POST /resume_chat`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return server;
}
