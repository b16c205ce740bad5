import net from "node:net";

/**
 * When and how {@link FaultProxy.cutOnce} breaks a connection.
 *
 * @example
 * proxy.cutOnce({ match: "COMMIT", when: "after" }); // the server commits, the client never hears it
 */
export interface CutRule {
  /** Matches the client→server bytes that trigger the cut (e.g. the text of a statement). */
  match: string;
  /**
   * `before`: the matching bytes never reach the server. `after`: they do, but no answer comes back.
   * `answered`: they do, and the cut comes when the server's answer arrives (so the server has surely
   * acted on them), which the client never gets.
   */
  when: "before" | "after" | "answered";
  /**
   * With `answered`: an answer containing this text is delivered and the rule stays armed for the
   * client's next request — e.g. Redis's `NOSCRIPT`, after which the client resends its script in full.
   */
  passAnswer?: string;
  /**
   * Then the service looks down for this long: every connection reset, new ones refused (as in
   * {@link FaultProxy.restart}), so a client's quick retries of the cut request fail too.
   */
  downMs?: number;
}

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  cut: boolean;
  /** A rule whose request was forwarded: the link is cut when its answer arrives (`when: "answered"`). */
  awaiting?: CutRule | undefined;
}

/**
 * A TCP proxy on loopback in front of a real server (PostgreSQL, Redis), for fault injection without
 * mocks. It can break one connection at a chosen moment (before or after a matching request reached the
 * server — e.g. right after COMMIT was sent), cut every connection at once and refuse new ones for a
 * while (a server restart, as the client sees it), delay traffic, or swallow it (a network partition:
 * connections stay open, nothing arrives).
 *
 * @example
 * const proxy = await FaultProxy.start(5432);
 * const saver = new PostgresSaver({ connectionString: `postgres://postgres@127.0.0.1:${proxy.port}/test` });
 * proxy.cutOnce({ match: "COMMIT", when: "after" });
 * await saver.put(request); // retried on a new connection, stored once
 * await proxy.close();
 */
export class FaultProxy {
  readonly #server: net.Server;
  readonly #links = new Set<Link>();
  readonly #upstreamPort: number;
  readonly #upstreamHost: string;
  #rule: CutRule | undefined;
  #delayMs = 0;
  #dropping = false;
  #refusing = false;
  /** How many connections were cut so far (by a rule or by {@link FaultProxy.cutAll}). */
  cuts = 0;
  /** How many connections were accepted so far. */
  connections = 0;
  /** How many connections were refused while {@link FaultProxy.refuse} was on. */
  refused = 0;

  private constructor(upstreamPort: number, upstreamHost: string) {
    this.#upstreamPort = upstreamPort;
    this.#upstreamHost = upstreamHost;
    this.#server = net.createServer((client) => this.#accept(client));
  }

  /**
   * Starts a proxy on a free 127.0.0.1 port in front of `upstreamPort` (on 127.0.0.1 unless told).
   *
   * @example
   * const proxy = await FaultProxy.start(6379);
   */
  static async start(upstreamPort: number, upstreamHost = "127.0.0.1"): Promise<FaultProxy> {
    const proxy = new FaultProxy(upstreamPort, upstreamHost);
    await new Promise<void>((resolve) => proxy.#server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  /** The port clients connect to. */
  get port(): number {
    return (this.#server.address() as net.AddressInfo).port;
  }

  /** Connections open through the proxy now. */
  get open(): number {
    return this.#links.size;
  }

  /**
   * Rewrites a service URL (`postgres://…`, `redis://…`) to go through the proxy.
   *
   * @example
   * const url = proxy.url(POSTGRES_URL);
   */
  url(serviceUrl: string): string {
    const url = new URL(serviceUrl);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }

  /** Arms a one-shot cut: the next connection whose traffic matches is broken. */
  cutOnce(rule: CutRule): void {
    this.#rule = rule;
  }

  /** Delays every chunk, both ways, by `ms` (order kept). 0 turns it off. */
  delay(ms: number): void {
    this.#delayMs = Math.max(0, ms);
  }

  /** While on, bytes are swallowed both ways and connections stay open: a partition, not a reset. */
  drop(on: boolean): void {
    this.#dropping = on;
  }

  /** While on, new connections are closed as soon as they are accepted: the server looks down. */
  refuse(on: boolean): void {
    this.#refusing = on;
  }

  /** Resets every open connection now; returns how many. */
  cutAll(): number {
    let n = 0;
    for (const link of this.#links) {
      if (link.cut) continue;
      link.cut = true;
      n++;
      link.client.destroy();
      link.upstream.destroy();
    }
    this.cuts += n;
    return n;
  }

  /**
   * What a server restart looks like from the client: every connection reset, new ones refused for
   * `downMs`, then accepted again.
   *
   * @example
   * await proxy.restart(1_500);
   */
  async restart(downMs: number): Promise<void> {
    this.refuse(true);
    this.cutAll();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    this.refuse(false);
  }

  /** Closes every connection and the listener. */
  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: net.Socket): void {
    if (this.#refusing) {
      this.refused++;
      client.destroy();
      return;
    }
    this.connections++;
    const upstream = net.connect(this.#upstreamPort, this.#upstreamHost);
    const link: Link = { client, upstream, cut: false };
    this.#links.add(link);
    const forget = () => this.#links.delete(link);
    // A side that hangs up cleanly (QUIT, Terminate) is passed on with end(), so bytes still queued
    // for the other side (the server's last answer) are delivered first; errors reset at once.
    client.on("close", () => {
      forget();
      upstream.end();
    });
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => {
      forget();
      client.end();
    });
    const toClient = this.#forwarder(link, client);
    const toServer = this.#forwarder(link, upstream);
    upstream.on("data", (chunk: Buffer) => {
      const rule = link.awaiting;
      if (!rule || link.cut) return toClient(chunk);
      link.awaiting = undefined;
      if (rule.passAnswer !== undefined && chunk.includes(rule.passAnswer)) {
        this.#rule = rule;
        return toClient(chunk);
      }
      this.#cut(link, rule, 0);
    });
    client.on("data", (chunk: Buffer) => {
      const rule = this.#rule;
      if (link.cut || !rule || !chunk.includes(rule.match)) return toServer(chunk);
      this.#rule = undefined;
      if (rule.when === "answered") {
        link.awaiting = rule;
        return toServer(chunk);
      }
      if (rule.when === "after") upstream.write(chunk);
      // Leave the server time to act on what it got, then hang up on it too.
      this.#cut(link, rule, rule.when === "after" ? 300 : 0);
    });
  }

  /** Breaks `link` for `rule`: the client is reset at once, the server hung up on after `serverMs`. */
  #cut(link: Link, rule: CutRule, serverMs: number): void {
    this.cuts++;
    link.cut = true;
    link.client.destroy();
    setTimeout(() => link.upstream.end(), serverMs);
    if (rule.downMs !== undefined) void this.restart(rule.downMs);
  }

  /** Writes chunks to `to` unless the link is cut or traffic is dropped, after the configured delay. */
  #forwarder(link: Link, to: net.Socket): (chunk: Buffer) => void {
    let tail = 0;
    return (chunk) => {
      if (link.cut || this.#dropping) return;
      const delay = this.#delayMs;
      if (delay === 0 && tail <= Date.now()) {
        to.write(chunk);
        return;
      }
      const at = Math.max(Date.now() + delay, tail);
      tail = at;
      setTimeout(() => {
        if (!link.cut && !to.destroyed) to.write(chunk);
      }, at - Date.now());
    };
  }
}
