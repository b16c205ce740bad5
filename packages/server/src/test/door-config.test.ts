import { describe, expect, it } from "vitest";
import { resolveConfig } from "../config/config.js";
import { createServer } from "../server.js";

describe("config of the doors", () => {
  it("a credential whose $VARIABLE is missing or empty fails the start with INVALID_CONFIG naming it", async () => {
    const auth = (apiKey: string) => ({ enabled: true, credentials: [{ user: "ana", apiKey }] });
    expect(() => resolveConfig({ graphs: {}, auth: auth("$ANA_KEY") }, {})).toThrow(
      expect.objectContaining({ code: "INVALID_CONFIG", message: expect.stringContaining("ANA_KEY") }),
    );
    expect(() => resolveConfig({ graphs: {}, auth: auth("$ANA_KEY") }, { ANA_KEY: "" })).toThrow(/ANA_KEY/);
    expect(() =>
      resolveConfig({ graphs: {}, auth: { enabled: true, credentials: [{ user: "bo", token: "$BO_TOKEN" }] } }, {}),
    ).toThrow(/BO_TOKEN/);
    await expect(
      createServer({ graphs: {}, saver: { kind: "sqlite", path: ":memory:" }, auth: auth("$NOPE_KEY") }, { env: {} }),
    ).rejects.toMatchObject({ code: "INVALID_CONFIG", message: expect.stringContaining("NOPE_KEY") });
    expect(resolveConfig({ graphs: {}, auth: auth("$ANA_KEY") }, { ANA_KEY: "s" }).auth.credentials).toEqual([
      { user: "ana", apiKey: "s" },
    ]);
  });

  it("limits.streamsPerUser defaults to 50; allowedOrigins defaults to none with auth on, any with auth off", () => {
    const on = resolveConfig({ graphs: {}, auth: { enabled: true, credentials: [{ user: "a", apiKey: "k" }] } }, {});
    expect(on.limits.streamsPerUser).toBe(50);
    expect(on.allowedOrigins).toEqual([]);
    expect(resolveConfig({ graphs: {} }, {}).allowedOrigins).toBeNull();
    const listed = resolveConfig({ graphs: {}, allowedOrigins: ["https://app.example"] }, {});
    expect(listed.allowedOrigins).toEqual(["https://app.example"]);
    expect(resolveConfig({ graphs: {}, limits: { streamsPerUser: 3 } }, {}).limits.streamsPerUser).toBe(3);
  });

  it("refuses a malformed allowedOrigins or streamsPerUser", () => {
    for (const allowedOrigins of [
      "https://a.example",
      [1],
      ["https://a.example/path"],
      ["a.example"],
      ["https://a.example/"],
    ]) {
      expect(() => resolveConfig({ graphs: {}, allowedOrigins } as never, {})).toThrow(/allowedOrigins/);
    }
    for (const streamsPerUser of [0, -1, 1.5, "9"]) {
      expect(() => resolveConfig({ graphs: {}, limits: { streamsPerUser } } as never, {})).toThrow(/streamsPerUser/);
    }
  });
});
