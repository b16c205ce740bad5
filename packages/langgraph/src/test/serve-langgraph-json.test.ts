import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../../..");
const FIXTURE = join(REPO, "packages/langgraph/src/test/fixtures/served-graph.ts");

let dir: string;
let child: ChildProcess;
let client: Client;
let apiUrl: string;

/** Starts `trellis serve` in a LangGraph project folder (langgraph.json, .env, src/graph.ts) and waits for its URL. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "trellis-lgjson-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/graph.ts"), `export { graph } from ${JSON.stringify(pathToFileURL(FIXTURE).href)};\n`);
  writeFileSync(join(dir, ".env"), "# read by the graph\nSERVED_GREETING=Hola\n");
  writeFileSync(
    join(dir, "langgraph.json"),
    JSON.stringify({ node_version: "20", graphs: { agent: "./src/graph.ts:graph" }, env: ".env", dependencies: ["."] }),
  );
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  child = spawn(
    process.execPath,
    [
      "--conditions=@trellis/source",
      "--import",
      tsx,
      join(REPO, "packages/cli/src/bin.ts"),
      "serve",
      "--port",
      "0",
      "--no-studio",
    ],
    { cwd: dir, env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  const url = await new Promise<string>((ok, fail) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Trellis server: (http\S+)/.exec(out);
      if (m) ok(m[1] as string);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", (code) => fail(new Error(`trellis serve exited with ${code}: ${out}`)));
  });
  apiUrl = url;
  client = new Client({ apiUrl: url, apiKey: null });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((ok) => child.once("exit", ok));
    child.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("trellis serve reads a LangGraph project's langgraph.json", () => {
  it("serves its compat graph to LangGraph's SDK: token stream, interrupt, resume, config and env", async () => {
    const assistants = await client.assistants.search({ graphId: "agent" });
    expect(assistants.map((a) => a.graph_id)).toContain("agent");
    const thread = await client.threads.create();
    const tokens: string[] = [];
    let interrupted = false;
    for await (const part of client.runs.stream(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "Draft a note" }] },
      config: { configurable: { user_id: "ana" } },
      streamMode: ["messages-tuple", "updates"],
    })) {
      if (part.event === "messages") {
        const [chunk, meta] = part.data as unknown as [{ type: string; content: string }, { langgraph_node: string }];
        if (meta.langgraph_node === "agent" && chunk.type === "AIMessageChunk") tokens.push(chunk.content);
      }
      if (part.event === "updates" && "__interrupt__" in (part.data as object)) interrupted = true;
    }
    expect(tokens.join("")).toBe("Here is a careful draft.");
    expect(tokens.length).toBeGreaterThan(1);
    expect(interrupted).toBe(true);
    const paused = await client.threads.getState(thread.thread_id);
    expect(paused.next).toEqual(["review"]);
    expect(paused.tasks[0]?.interrupts[0]?.value).toEqual({ question: "Ship the draft?" });
    const done = (await client.runs.wait(thread.thread_id, "agent", {
      command: { resume: "ship it" },
      config: { configurable: { user_id: "ana" } },
    })) as {
      messages: Array<{ type: string; content: string; additional_kwargs?: Record<string, unknown> }>;
      verdict: string;
    };
    expect(done.verdict).toBe("ship it");
    const last = done.messages[done.messages.length - 1];
    expect(last?.type).toBe("ai");
    expect(last?.content).toBe("Hola ana: ship it");
    expect(last?.additional_kwargs).toEqual({ reviewed: true });
    expect(done.messages.map((m) => m.type)).toEqual(["human", "ai", "ai"]);
  });

  it("serves it over AG-UI too: the model's tokens as text events, the pause as an interrupt outcome", async () => {
    const response = await fetch(`${apiUrl}/ag-ui/agent`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        threadId: crypto.randomUUID(),
        runId: crypto.randomUUID(),
        messages: [{ id: "u1", role: "user", content: "Draft a note" }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string; outcome?: { type: string } });
    const text = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta ?? "");
    expect(text.join("")).toBe("Here is a careful draft.");
    expect(events.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt" } });
  });
});
