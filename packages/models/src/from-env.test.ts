import { TrellisError } from "@trellis/checkpoint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { chatModelFromEnv } from "./from-env.js";
import { RuleChatModel } from "./rule-chat-model.js";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "./testing/index.js";

const offline = new RuleChatModel({ rules: [], fallback: "offline" });

describe("chatModelFromEnv", () => {
  it("returns undefined, or the fallback, when no provider is configured", () => {
    expect(chatModelFromEnv({ env: {} })).toBeUndefined();
    expect(chatModelFromEnv({ env: {}, fallback: offline })).toBe(offline);
    expect(
      chatModelFromEnv({ env: { TRELLIS_MODEL_PROVIDER: "offline", TRELLIS_MODEL: "x" }, fallback: offline }),
    ).toBe(offline);
    expect(chatModelFromEnv({ env: { TRELLIS_MODEL_PROVIDER: "  " } })).toBeUndefined();
  });

  it("builds the configured provider's model", () => {
    const model = chatModelFromEnv({
      env: { TRELLIS_MODEL_PROVIDER: "Mistral", TRELLIS_MODEL: "mistral-small-latest", MISTRAL_API_KEY: "k" },
    });
    expect(model?.provider).toBe("mistral");
    expect(model?.model).toBe("mistral-small-latest");
  });

  it("reads a custom prefix, with or without the trailing underscore", () => {
    const env = { TUTOR_MODEL_PROVIDER: "google", TUTOR_MODEL: "gemini-2.0-flash", GEMINI_API_KEY: "k" };
    expect(chatModelFromEnv({ prefix: "TUTOR", env })?.model).toBe("gemini-2.0-flash");
    expect(chatModelFromEnv({ prefix: "TUTOR_", env })?.provider).toBe("google");
    expect(chatModelFromEnv({ env })).toBeUndefined();
  });

  const invalid: [string, Record<string, string>, string][] = [
    ["an unknown provider", { TRELLIS_MODEL_PROVIDER: "anthropicx", TRELLIS_MODEL: "m" }, "TRELLIS_MODEL_PROVIDER"],
    ["a provider without a model", { TRELLIS_MODEL_PROVIDER: "openai" }, "TRELLIS_MODEL"],
    [
      "a temperature that is not a number",
      { TRELLIS_MODEL_PROVIDER: "openai", TRELLIS_MODEL: "m", TRELLIS_MODEL_TEMPERATURE: "warm" },
      "TRELLIS_MODEL_TEMPERATURE",
    ],
    [
      "openai-compatible without a base URL",
      { TRELLIS_MODEL_PROVIDER: "openai-compatible", TRELLIS_MODEL: "m" },
      "TRELLIS_MODEL_BASE_URL",
    ],
  ];
  it.each(invalid)("rejects %s with INVALID_CONFIG naming the variable", (_label, env, variable) => {
    let error: unknown;
    try {
      chatModelFromEnv({ env });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TrellisError);
    expect((error as TrellisError).code).toBe("INVALID_CONFIG");
    expect((error as Error).message).toContain(variable);
  });

  describe("against the local server", () => {
    let server: FakeOpenAiServer;
    beforeEach(async () => {
      server = await startFakeOpenAiServer();
    });
    afterEach(async () => {
      await server.close();
    });

    it("uses the provider's own key and base URL variables, and the numeric settings", async () => {
      server.enqueue("from env");
      const model = chatModelFromEnv({
        env: {
          TRELLIS_MODEL_PROVIDER: "openai",
          TRELLIS_MODEL: "gpt-env",
          OPENAI_API_KEY: "sk-env",
          OPENAI_BASE_URL: server.url,
          TRELLIS_MODEL_TEMPERATURE: "0.3",
          TRELLIS_MODEL_MAX_TOKENS: "64",
        },
      });
      expect((await model?.invoke(["hi"]))?.content).toBe("from env");
      const request = server.requests[0];
      expect(request?.headers.authorization).toBe("Bearer sk-env");
      expect(request?.body).toMatchObject({ model: "gpt-env", temperature: 0.3, max_tokens: 64 });
    });

    it("lets TRELLIS_MODEL_API_KEY and TRELLIS_MODEL_BASE_URL override the provider's variables (vLLM)", async () => {
      server.enqueue("from vllm");
      const model = chatModelFromEnv({
        env: {
          TRELLIS_MODEL_PROVIDER: "vllm",
          TRELLIS_MODEL: "Qwen/Qwen2.5-7B-Instruct",
          TRELLIS_MODEL_BASE_URL: server.url,
          TRELLIS_MODEL_API_KEY: "local-key",
          VLLM_API_KEY: "ignored",
        },
      });
      expect((await model?.invoke(["hi"]))?.content).toBe("from vllm");
      expect(server.requests[0]?.headers.authorization).toBe("Bearer local-key");
    });
  });
});
