import { startFakeOpenAiServer } from "@trellis/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { twiModelFromEnv } from "./model-from-env.js";
import { OFFLINE_MODEL_ID } from "./offline/offline-model.js";
import { AI_LABEL } from "./state.js";
import { conversation, createTestApp, PALLET_REQUEST } from "./test/test-app.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const DRAFT =
  "1. CÍM\nRaklap fóliázása\n\n2. CÉL\nStabil rakat\n\n3. SZÜKSÉGES ANYAGOK ÉS ESZKÖZÖK\n- fólia\n\n4. BIZTONSÁGI ELŐÍRÁSOK\n- kesztyű\n\n5. LÉPÉSEK\n1. lépés: Tekerje körbe\n   Kulcspontok:\n   - feszesen\n   Indoklás: stabilitás\n\n6. MINŐSÉGI ELLENŐRZÉS\n- nem mozdul";

describe("the model from the environment", () => {
  it("is the offline model when nothing is configured", () => {
    expect(twiModelFromEnv({}).model).toBe(OFFLINE_MODEL_ID);
    expect(twiModelFromEnv({ TWI_MODEL_PROVIDER: "offline" }).model).toBe(OFFLINE_MODEL_ID);
  });

  it.each([
    ["azure", { AZURE_API_KEY: "az-key" }, "api-key"],
    ["mistral", { MISTRAL_API_KEY: "mi-key" }, "authorization"],
  ])(
    "%s: the seed's two calls go over the wire with their temperature and token limit",
    async (provider, keys, header) => {
      const server = await startFakeOpenAiServer([" generate_twi", DRAFT]);
      cleanup.push(() => server.close());
      const model = twiModelFromEnv({
        TWI_MODEL_PROVIDER: provider,
        TWI_MODEL: "mistral-large-latest",
        TWI_MODEL_BASE_URL: server.url,
        TWI_MODEL_MAX_RETRIES: "0",
        ...keys,
      });
      expect(model.provider).toBe(provider);
      const app = createTestApp({ model });
      cleanup.push(() => app.dispose());
      const view = await app.assistant.start(conversation("c1", PALLET_REQUEST));
      expect(view.kind).toBe("review");
      const [intent, generate] = server.requests.map((r) => r.body as Record<string, unknown>);
      expect(intent).toMatchObject({ model: "mistral-large-latest", temperature: 0.1, max_tokens: 20 });
      expect(generate).toMatchObject({ model: "mistral-large-latest", temperature: 0.3, max_tokens: 4000 });
      expect(server.requests[0]?.headers[header]).toBeDefined();
      const state = await app.assistant.state("c1");
      expect(state.draft).toBe(`${AI_LABEL}\n\n${DRAFT}`);
      expect(state.draft_metadata?.model).toBe("mistral-large-latest");
    },
  );

  it("azure with a Foundry /models endpoint: the seed's inference route, api-version and api-key", async () => {
    const server = await startFakeOpenAiServer([" generate_twi", DRAFT]);
    cleanup.push(() => server.close());
    const foundry = `${server.url.replace(/\/v1$/, "")}/models`;
    const model = twiModelFromEnv({
      TWI_MODEL_PROVIDER: "azure",
      TWI_MODEL: "mistral-large-latest",
      TWI_MODEL_BASE_URL: foundry,
      TWI_MODEL_MAX_RETRIES: "0",
      AZURE_API_KEY: "foundry-key",
    });
    const app = createTestApp({ model });
    cleanup.push(() => app.dispose());
    expect((await app.assistant.start(conversation("c1", PALLET_REQUEST))).kind).toBe("review");
    expect(server.requests.map((r) => r.path)).toEqual([
      "/models/chat/completions?api-version=2024-05-01-preview",
      "/models/chat/completions?api-version=2024-05-01-preview",
    ]);
    expect(server.requests[0]?.headers["api-key"]).toBe("foundry-key");
    const [intent, generate] = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(intent).toMatchObject({ model: "mistral-large-latest", temperature: 0.1, max_tokens: 20 });
    expect(generate).toMatchObject({ model: "mistral-large-latest", temperature: 0.3, max_tokens: 4000 });
    expect((await app.assistant.state("c1")).draft).toBe(`${AI_LABEL}\n\n${DRAFT}`);
  });

  it("TRELLIS_MODEL_* applies when no TWI_MODEL_* is set", () => {
    const model = twiModelFromEnv({
      TRELLIS_MODEL_PROVIDER: "mistral",
      TRELLIS_MODEL: "mistral-small-latest",
      MISTRAL_API_KEY: "k",
    });
    expect([model.provider, model.model]).toEqual(["mistral", "mistral-small-latest"]);
  });
});
