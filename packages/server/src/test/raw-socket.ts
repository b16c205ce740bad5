/**
 * Raw-socket helpers for the door tests: a server in a child process (so a crash is an exit, not a
 * failure of the test process), raw HTTP exchanges, and WebSocket frames built by hand.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TrellisConfig } from "../config/config.js";
import { launchTestChild } from "./serve-child-launch.js";

/** A door-child server process. */
export interface ChildServer {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything the child wrote to stderr so far. */
  stderr(): string;
  /** True while the process runs. */
  alive(): boolean;
  stop(): Promise<void>;
}

/**
 * Starts `door-child.ts` (auth on, apps `tutor` and `crashy`, body limit 64 KiB) with `overrides`.
 *
 * @example
 * const s = await startChildServer();
 * expect(await s.alive()).toBe(true);
 */
export async function startChildServer(overrides: Partial<TrellisConfig> = {}): Promise<ChildServer> {
  const dir = mkdtempSync(join(tmpdir(), "trellis-doors-"));
  const {
    child,
    url: ready,
    stderr,
  } = launchTestChild("door-child.ts", [join(dir, "db.sqlite"), JSON.stringify(overrides)]);
  const port = Number(new URL(await ready).port);
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    stderr,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the server sent back on a raw connection, and how the connection ended. */
export interface RawAnswer {
  /** All bytes received. */
  bytes: Buffer;
  /** The status of the first HTTP answer, if one arrived. */
  status: number | undefined;
  /** "closed" when the server closed or reset the connection, "timeout" when it was still open at the bound. */
  end: "closed" | "timeout";
}

/** The status code of the first HTTP status line in `bytes`. */
export function statusOf(bytes: Buffer): number | undefined {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(bytes.subarray(0, 64).toString("latin1"));
  return m ? Number(m[1]) : undefined;
}

/**
 * Sends `request` on a new connection and collects the answer until the server closes the connection,
 * `done(bytes)` is true, or `timeoutMs` passes; then the connection is destroyed.
 */
export function rawExchange(
  port: number,
  request: Buffer | string,
  o: {
    timeoutMs?: number;
    done?: (bytes: Buffer) => boolean;
    after?: (socket: net.Socket, bytes: Buffer) => void;
  } = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let bytes = Buffer.alloc(0);
    let settled = false;
    let afterDone = false;
    const finish = (end: RawAnswer["end"]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes, status: statusOf(bytes), end });
    };
    const timer = setTimeout(() => finish("timeout"), o.timeoutMs ?? 3_000);
    socket.on("connect", () => socket.write(request));
    socket.on("data", (d) => {
      bytes = Buffer.concat([bytes, d]);
      if (o.after && !afterDone && bytes.includes("\r\n\r\n")) {
        afterDone = true;
        o.after(socket, bytes);
      }
      if (o.done?.(bytes)) finish("closed");
    });
    socket.on("error", () => finish("closed"));
    socket.on("close", () => finish("closed"));
  });
}

/** True once a complete HTTP answer (headers, and the body its Content-Length announces) arrived. */
export function completeAnswer(bytes: Buffer): boolean {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const head = bytes.subarray(0, end).toString("latin1");
  if (/^HTTP\/1\.1 101/.test(head)) return true;
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) return bytes.length >= end + 4 + Number(length[1]);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) return bytes.includes("\r\n0\r\n\r\n", end);
  return false;
}

/** The body of a complete HTTP answer (not chunked). */
export function bodyOf(bytes: Buffer): string {
  const end = bytes.indexOf("\r\n\r\n");
  return end < 0 ? "" : bytes.subarray(end + 4).toString("utf8");
}

/** A WebSocket upgrade request for `target`, with extra header lines. */
export function upgradeRequest(target: string, headers: Record<string, string> = {}): string {
  const lines = [
    `GET ${target} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Upgrade: websocket",
    "Connection: Upgrade",
    `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
    "Sec-WebSocket-Version: 13",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/**
 * One WebSocket frame as a client sends it: masked, `fin` set unless told otherwise. `length` overrides
 * the announced payload length (a lie, for the fuzzer).
 */
export function clientFrame(
  opcode: number,
  payload: Buffer,
  o: { fin?: boolean; mask?: boolean; rsv?: number; length?: number } = {},
): Buffer {
  const length = o.length ?? payload.length;
  const first = ((o.fin ?? true) ? 0x80 : 0) | ((o.rsv ?? 0) << 4) | (opcode & 0x0f);
  const masked = o.mask ?? true;
  let header: Buffer;
  if (length < 126) header = Buffer.from([first, (masked ? 0x80 : 0) | length]);
  else if (length < 65536) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = (masked ? 0x80 : 0) | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!masked) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] = (body[i] as number) ^ (key[i % 4] as number);
  return Buffer.concat([header, key, body]);
}

/**
 * Reads server frames from `bytes` after the 101 answer: the close code of the first close frame, if
 * any, and the text of the other frames.
 */
export function serverFrames(bytes: Buffer): { texts: string[]; closeCode: number | undefined } {
  let at = bytes.indexOf("\r\n\r\n");
  if (at < 0) return { texts: [], closeCode: undefined };
  at += 4;
  const texts: string[] = [];
  while (at + 2 <= bytes.length) {
    const opcode = (bytes[at] as number) & 0x0f;
    let length = (bytes[at + 1] as number) & 0x7f;
    let start = at + 2;
    if (length === 126) {
      if (start + 2 > bytes.length) break;
      length = bytes.readUInt16BE(start);
      start += 2;
    } else if (length === 127) {
      if (start + 8 > bytes.length) break;
      length = Number(bytes.readBigUInt64BE(start));
      start += 8;
    }
    if (start + length > bytes.length) break;
    const payload = bytes.subarray(start, start + length);
    if (opcode === 0x8) return { texts, closeCode: payload.length >= 2 ? payload.readUInt16BE(0) : 1005 };
    if (opcode === 0x1) texts.push(payload.toString("utf8"));
    at = start + length;
  }
  return { texts, closeCode: undefined };
}

/** True when `GET /ok` answers 200 within `timeoutMs`. */
export async function answersOk(url: string, timeoutMs = 3_000): Promise<boolean> {
  try {
    const res = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}
