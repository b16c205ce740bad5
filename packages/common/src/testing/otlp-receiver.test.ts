import { afterEach, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "./otlp-receiver.js";

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const post = (url: string, body: string, contentType = "application/json") =>
  fetch(url, { method: "POST", headers: { "content-type": contentType }, body });

const oneSpan = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
      scopeSpans: [
        {
          spans: [
            {
              traceId: "t1",
              spanId: "s1",
              name: "trellis.run",
              kind: 1,
              attributes: [
                { key: "n", value: { intValue: "3" } },
                { key: "tags", value: { arrayValue: { values: [{ stringValue: "a" }, { boolValue: true }] } } },
              ],
              links: [{ traceId: "t0", spanId: "s0" }],
            },
          ],
        },
      ],
    },
  ],
};

describe("startOtlpReceiver", () => {
  it("decodes an OTLP JSON export into flat spans", async () => {
    receiver = await startOtlpReceiver();
    const res = await post(receiver.url, JSON.stringify(oneSpan));
    expect(res.status).toBe(200);
    expect(receiver.spans).toEqual([
      {
        traceId: "t1",
        spanId: "s1",
        parentSpanId: "",
        name: "trellis.run",
        kind: 1,
        attributes: { n: 3, tags: ["a", true] },
        events: [],
        links: [{ traceId: "t0", spanId: "s0", attributes: {} }],
        status: { code: 0 },
        service: "svc",
      },
    ]);
  });

  it("refuses what is not an OTLP JSON export with a 4xx, keeps nothing and keeps serving", async () => {
    receiver = await startOtlpReceiver();
    expect((await post(receiver.url, "{not json")).status).toBe(400);
    expect((await post(receiver.url, JSON.stringify({ resourceSpans: { nope: 1 } }))).status).toBe(400);
    expect((await post(receiver.url, JSON.stringify(oneSpan), "application/x-protobuf")).status).toBe(415);
    expect((await post(receiver.url.replace("/v1/traces", "/v1/logs"), JSON.stringify(oneSpan))).status).toBe(415);
    expect(receiver.spans).toEqual([]);
    expect((await post(receiver.url, JSON.stringify(oneSpan))).status).toBe(200);
    expect(receiver.spans).toHaveLength(1);
  });
});
