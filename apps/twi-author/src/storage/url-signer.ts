import { createHmac, timingSafeEqual } from "node:crypto";
import { type Clock, systemClock } from "@trellis/core";

/**
 * How long a signed URL is valid by default: 24 hours, as the seed's SAS URL.
 *
 * @example
 * new UrlSigner({ secret, ttlMs: DEFAULT_URL_TTL_MS });
 */
export const DEFAULT_URL_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Why a signed URL was refused.
 *
 * @example
 * const result = signer.verify(name, expires, sig); if (!result.ok) console.log(result.reason);
 */
export type VerifyResult = { ok: true } | { ok: false; reason: "expired" | "bad-signature" | "malformed" };

/**
 * Options of {@link UrlSigner}.
 *
 * @example
 * const options: UrlSignerOptions = { secret: "…32 random bytes…", clock: new ManualClock(0) };
 */
export interface UrlSignerOptions {
  /** HMAC-SHA256 key; at least 16 characters. */
  secret: string;
  ttlMs?: number;
  clock?: Clock;
}

/**
 * Signs blob names with an expiry (HMAC-SHA256 over `name` and `expires`), the app's stand-in for an
 * Azure SAS token. Verification is constant-time.
 *
 * @example
 * const signer = new UrlSigner({ secret: "s3cret-s3cret-s3cret" });
 * const { expires, sig } = signer.sign("acme/c1.pdf");
 * signer.verify("acme/c1.pdf", String(expires), sig); // { ok: true }
 */
export class UrlSigner {
  readonly #secret: string;
  readonly #ttlMs: number;
  readonly #clock: Clock;

  constructor(options: UrlSignerOptions) {
    if (options.secret.length < 16) throw new Error("The URL signing secret must be at least 16 characters.");
    this.#secret = options.secret;
    this.#ttlMs = options.ttlMs ?? DEFAULT_URL_TTL_MS;
    this.#clock = options.clock ?? systemClock;
  }

  /** Signs `name` until now + ttl; `expires` is in seconds since the epoch. */
  sign(name: string): { expires: number; sig: string } {
    const expires = Math.floor((this.#clock.now() + this.#ttlMs) / 1000);
    return { expires, sig: this.#mac(name, expires) };
  }

  /** Checks a signature and its expiry. */
  verify(name: string, expires: string | undefined, sig: string | undefined): VerifyResult {
    if (!expires || !sig || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) {
      return { ok: false, reason: "malformed" };
    }
    const expected = Buffer.from(this.#mac(name, Number(expires)));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { ok: false, reason: "bad-signature" };
    if (Number(expires) * 1000 <= this.#clock.now()) return { ok: false, reason: "expired" };
    return { ok: true };
  }

  #mac(name: string, expires: number): string {
    return createHmac("sha256", this.#secret).update(`${name}\n${expires}`).digest("base64url");
  }
}
