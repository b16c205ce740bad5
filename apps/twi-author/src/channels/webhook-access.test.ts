import { describe, expect, it } from "vitest";
import { DEFAULT_SERVICE_URL_HOSTS, loadTwiConfig, UNVERIFIED_WEBHOOKS_OPT_IN } from "../config.js";
import { tempDir } from "../test/test-app.js";
import { serviceUrlAllowed, twiRouteAccess } from "./webhook-access.js";

const base = { TWI_DATA_DIR: tempDir(), TWI_URL_SIGNING_SECRET: "access-test-secret" };

describe("webhook access", () => {
  it("allows replies only to Bot Framework hosts, over https (http only on loopback), on the pattern's port", () => {
    const hosts = DEFAULT_SERVICE_URL_HOSTS;
    expect(serviceUrlAllowed("https://smba.trafficmanager.net/emea/", hosts)).toBe(true);
    expect(serviceUrlAllowed("https://smba.infra.gcc.teams.microsoft.com/", hosts)).toBe(true);
    expect(serviceUrlAllowed("https://webchat.botframework.com/", hosts)).toBe(true);
    for (const evil of [
      "https://evil.trafficmanager.net/",
      "https://smba.trafficmanager.net.evil.example/",
      "https://botframework.com.evil.example/",
      "https://evilbotframework.com/",
      "http://smba.trafficmanager.net/emea/",
      "https://smba.trafficmanager.net:8443/",
      "https://user:pw@smba.trafficmanager.net/",
      "https://127.0.0.1/",
      "not a url",
      undefined,
    ]) {
      expect(serviceUrlAllowed(evil, hosts), String(evil)).toBe(false);
    }
    expect(serviceUrlAllowed("http://127.0.0.1:3978/", ["127.0.0.1:3978"])).toBe(true);
    expect(serviceUrlAllowed("http://127.0.0.1:3979/", ["127.0.0.1:3978"])).toBe(false);
    expect(serviceUrlAllowed("http://example.com:3978/", ["example.com:3978"])).toBe(false);
  });

  it("refuses unconfigured webhooks unless the opt-in says its danger exactly", () => {
    const refused = twiRouteAccess(loadTwiConfig(base));
    expect(refused.map((r) => [r.method, r.path, r.check])).toEqual([
      ["POST", "/teams/messages", "refused"],
      ["POST", "/telegram/webhook", "refused"],
      ["GET", "/blobs/*", "verified"],
    ]);
    const dev = twiRouteAccess(loadTwiConfig({ ...base, TWI_ALLOW_UNVERIFIED_WEBHOOKS: UNVERIFIED_WEBHOOKS_OPT_IN }));
    expect(dev.map((r) => r.check)).toEqual(["unverified", "unverified", "verified"]);
    const verified = twiRouteAccess(
      loadTwiConfig({ ...base, TEAMS_APP_ID: "app", TELEGRAM_WEBHOOK_SECRET: "s", TWI_ALLOW_UNVERIFIED_WEBHOOKS: "" }),
    );
    expect(verified.map((r) => r.check)).toEqual(["verified", "verified", "verified"]);
    // Configured checks win over the opt-in.
    const both = twiRouteAccess(
      loadTwiConfig({ ...base, TEAMS_APP_ID: "app", TWI_ALLOW_UNVERIFIED_WEBHOOKS: UNVERIFIED_WEBHOOKS_OPT_IN }),
    );
    expect(both.map((r) => r.check)).toEqual(["verified", "unverified", "verified"]);

    expect(() => loadTwiConfig({ ...base, TWI_ALLOW_UNVERIFIED_WEBHOOKS: "1" })).toThrow(UNVERIFIED_WEBHOOKS_OPT_IN);
    expect(() => loadTwiConfig({ ...base, TEAMS_APP_ID: "app", TEAMS_VERIFY_REQUESTS: "false" })).toThrow(
      "TWI_ALLOW_UNVERIFIED_WEBHOOKS",
    );
    const emulator = loadTwiConfig({
      ...base,
      TEAMS_APP_ID: "app",
      TEAMS_VERIFY_REQUESTS: "false",
      TWI_ALLOW_UNVERIFIED_WEBHOOKS: UNVERIFIED_WEBHOOKS_OPT_IN,
    });
    expect(twiRouteAccess(emulator)[0]?.check).toBe("unverified");
  });
});
