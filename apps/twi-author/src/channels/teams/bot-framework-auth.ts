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

  async #key(kid: string): Promise<Jwk | undefined> {
    const age = this.#keys ? Date.now() - this.#keys.fetchedAt : Number.POSITIVE_INFINITY;
    // Refresh when stale, or for an unknown key id (keys rotate) — at most every 5 minutes for those.
    if (age > KEYS_TTL_MS || (!this.#keys?.byKid.has(kid) && age > 5 * 60_000)) await this.#refresh();
    return this.#keys?.byKid.get(kid);
  }

  async #refresh(): Promise<void> {
    const get = this.#options.fetch ?? fetch;
    const metadata = (await (await get(this.#options.openIdMetadataUrl)).json()) as { jwks_uri?: string };
    if (!metadata.jwks_uri) throw new Error("The OpenID metadata has no jwks_uri.");
    const jwks = (await (await get(metadata.jwks_uri)).json()) as { keys?: Jwk[] };
    this.#keys = { byKid: new Map((jwks.keys ?? []).map((k) => [k.kid ?? "", k])), fetchedAt: Date.now() };
  }
}
