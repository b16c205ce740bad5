import net from "node:net";

/** When and how {@link CuttingProxy} breaks a connection. @internal */
export interface CutRule {
  /** Matches the client→server bytes that trigger the cut (e.g. the text of a statement). */
  match: string;
  /** `before`: the matching bytes never reach the server. `after`: they do, but no answer comes back. */
  when: "before" | "after";
}

/**
 * A TCP proxy in front of a real PostgreSQL server that breaks one connection at a chosen moment, so
 * tests can drop a connection mid-transaction (or right after COMMIT was sent) without mocks.
 * @internal
 */
export class CuttingProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #rule: CutRule | undefined;
  /** How many connections were cut so far. */
  cuts = 0;

  private constructor(upstreamPort: number) {
    this.#server = net.createServer((client) => this.#pipe(client, upstreamPort));
  }

  /** Starts a proxy on a free loopback port in front of `upstreamPort`. */
  static async start(upstreamPort: number): Promise<CuttingProxy> {
    const proxy = new CuttingProxy(upstreamPort);
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** Arms a one-shot cut: the next connection whose traffic matches is broken. */
  cutOnce(rule: CutRule): void {
    this.#rule = rule;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #pipe(client: net.Socket, upstreamPort: number): void {
    const upstream = net.connect(upstreamPort, "127.0.0.1");
    this.#sockets.add(client);
    this.#sockets.add(upstream);
    let cut = false;
    const forget = () => {
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    client.on("close", forget);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => client.destroy());
    upstream.on("data", (chunk) => {
      if (!cut) client.write(chunk);
    });
    client.on("data", (chunk) => {
      const rule = this.#rule;
      if (cut || !rule || !chunk.includes(rule.match)) {
        if (!cut) upstream.write(chunk);
        return;
      }
      this.#rule = undefined;
      this.cuts++;
      cut = true;
      if (rule.when === "after") upstream.write(chunk);
      client.destroy();
      // Leave the server time to act on what it got, then hang up on it too.
      setTimeout(() => upstream.end(), rule.when === "after" ? 300 : 0);
    });
  }
}
