/**
 * Checks the bearer token the Bot Framework puts on every incoming activity: an RS256 JWT signed by
 * a key from the OpenID metadata's JWKS (endorsed for the activity's channel), issued by
 * `https://api.botframework.com`, for this bot's app id, unexpired, and naming the activity's
 * `serviceUrl` in its `serviceurl` claim (required: it is the only proof of where replies may go).
 * Node's crypto does the RSA check.
 */
import { createPublicKey, type JsonWebKey, verify } from "node:crypto";

/** The issuer of Bot Framework tokens. */
const ISSUER = "https://api.botframework.com";
/** Clock skew allowed on `exp` and `nbf`. */
const SKEW_S = 300;
/** How long fetched keys are kept. */
const KEYS_TTL_MS = 24 * 60 * 60 * 1000;
/** The wait after a failed fetch of the keys: doubled after each failure in a row, up to the most. */
const RETRY_FIRST_MS = 5_000;
const RETRY_MOST_MS = 5 * 60_000;

/**
 * Why a request was refused.
 *
 * @example
 * const r = await auth.verify(header, activity.serviceUrl); if (!r.ok) return c.text(r.reason, 401);
 */
export type AuthResult = { ok: true } | { ok: false; reason: string };

/**
 * Options of {@link BotFrameworkAuth}.
 *
 * @example
 * new BotFrameworkAuth({ appId: "…", openIdMetadataUrl: "https://login.botframework.com/v1/.well-known/openidconfiguration" });
 */
export interface BotFrameworkAuthOptions {
  appId: string;
  openIdMetadataUrl: string;
  fetch?: typeof fetch;
  /** Seconds since the epoch. */
  now?: () => number;
}

type Jwk = JsonWebKey & { kid?: string; endorsements?: string[] };

function decodePart(part: string | undefined): Record<string, unknown> | undefined {
  if (!part) return undefined;
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * Verifies incoming Bot Framework requests.
 *
 * @example
 * const auth = new BotFrameworkAuth({ appId, openIdMetadataUrl });
 * const result = await auth.verify(c.req.header("authorization"), activity.serviceUrl);
 */
export class BotFrameworkAuth {
  readonly #options: BotFrameworkAuthOptions;
  #keys: { byKid: Map<string, Jwk>; fetchedAt: number } | undefined;
  /** The fetch of the keys under way: concurrent requests wait for the same one. */
  #fetching: Promise<void> | undefined;
  /** The last fetch failed: none is tried again before `retryAt`. */
  #failed: { retryAt: number; waitMs: number; message: string } | undefined;

  constructor(options: BotFrameworkAuthOptions) {
    this.#options = options;
  }

  /** Checks an `Authorization` header against the activity's `serviceUrl` and channel (default `msteams`). */
  async verify(
    authorization: string | undefined,
    serviceUrl: string | undefined,
    channelId = "msteams",
  ): Promise<AuthResult> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (!token) return { ok: false, reason: "missing bearer token" };
    const [h, p, s] = token.split(".");
    const header = decodePart(h);
    const claims = decodePart(p);
    if (!header || !claims || !s) return { ok: false, reason: "malformed token" };
    if (header.alg !== "RS256") return { ok: false, reason: `unsupported algorithm ${String(header.alg)}` };
    let key: Jwk | undefined;
    try {
      key = await this.#key(String(header.kid ?? ""));
    } catch (error) {
      return { ok: false, reason: `cannot fetch the signing keys: ${(error as Error).message}` };
    }
    if (!key) return { ok: false, reason: "unknown signing key" };
    if (key.endorsements && !key.endorsements.includes(channelId))
      return { ok: false, reason: `key not endorsed for ${channelId}` };
    const signed = verify(
      "RSA-SHA256",
      Buffer.from(`${h}.${p}`),
      createPublicKey({ key, format: "jwk" }),
      Buffer.from(s, "base64url"),
    );
    if (!signed) return { ok: false, reason: "bad signature" };
    const now = this.#options.now?.() ?? Math.floor(Date.now() / 1000);
    if (claims.iss !== ISSUER) return { ok: false, reason: "wrong issuer" };
    if (claims.aud !== this.#options.appId) return { ok: false, reason: "wrong audience" };
    if (typeof claims.exp !== "number" || claims.exp + SKEW_S < now) return { ok: false, reason: "expired" };
    if (typeof claims.nbf === "number" && claims.nbf - SKEW_S > now) return { ok: false, reason: "not yet valid" };
    const claimed = typeof claims.serviceurl === "string" ? claims.serviceurl : claims.serviceUrl;
    if (typeof claimed !== "string") return { ok: false, reason: "the token names no serviceurl" };
    if (!serviceUrl || claimed.replace(/\/+$/, "") !== serviceUrl.replace(/\/+$/, "")) {
      return { ok: false, reason: "serviceUrl does not match the token" };
    }
    return { ok: true };
  }

  /** Milliseconds since the epoch, on the clock of `options.now`. */
  #nowMs(): number {
    return (this.#options.now?.() ?? Date.now() / 1000) * 1000;
  }

  /**
   * The key of `kid`. The keys are fetched when stale, or for an unknown key id (keys rotate) at most
   * every 5 minutes; one fetch at a time (concurrent requests share it), and after a failure none until
   * a wait of 5 s, doubled with each failure in a row up to 5 minutes — so forged tokens cannot make
   * this process hammer the metadata endpoint while it is down. Keys fetched earlier stay in use while
   * a refresh fails.
   */
  async #key(kid: string): Promise<Jwk | undefined> {
    const now = this.#nowMs();
    const age = this.#keys ? now - this.#keys.fetchedAt : Number.POSITIVE_INFINITY;
    if (age > KEYS_TTL_MS || (!this.#keys?.byKid.has(kid) && age > 5 * 60_000)) {
      const failed = this.#failed;
      if (failed && now < failed.retryAt) {
        if (!this.#keys) {
          throw new Error(`${failed.message} (next try in ${Math.ceil((failed.retryAt - now) / 1000)} s)`);
        }
      } else {
        try {
          await this.#refreshOnce();
        } catch (error) {
          if (!this.#keys) throw error;
        }
      }
    }
    return this.#keys?.byKid.get(kid);
  }

  #refreshOnce(): Promise<void> {
    this.#fetching ??= this.#refresh()
      .then(
        () => {
          this.#failed = undefined;
        },
        (error: unknown) => {
          const waitMs = Math.min(RETRY_MOST_MS, this.#failed ? this.#failed.waitMs * 2 : RETRY_FIRST_MS);
          const message = (error as Error).message;
          this.#failed = { retryAt: this.#nowMs() + waitMs, waitMs, message };
          throw error;
        },
      )
      .finally(() => {
        this.#fetching = undefined;
      });
    return this.#fetching;
  }

  async #refresh(): Promise<void> {
    const get = this.#options.fetch ?? fetch;
    const json = async (url: string, what: string) => {
      const res = await get(url);
      if (!res.ok) throw new Error(`${what} answered ${res.status}`);
      return (await res.json()) as Record<string, unknown>;
    };
    const metadata = (await json(this.#options.openIdMetadataUrl, "the OpenID metadata")) as { jwks_uri?: string };
    if (!metadata.jwks_uri) throw new Error("The OpenID metadata has no jwks_uri.");
    const jwks = (await json(metadata.jwks_uri, "the JWKS")) as { keys?: Jwk[] };
    this.#keys = { byKid: new Map((jwks.keys ?? []).map((k) => [k.kid ?? "", k])), fetchedAt: this.#nowMs() };
  }
}
