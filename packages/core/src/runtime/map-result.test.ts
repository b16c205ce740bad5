import { describe, expect, it } from "vitest";
import { channel, END, type NodeOptions, START, StateGraph } from "../index.js";
import { promisesDuring } from "../test/promises-during.js";

function graphWith(node: () => unknown, options: NodeOptions) {
  return new StateGraph({ n: channel.value(0) })
    .addNode("node", node as never, options)
    .addEdge(START, "node")
    .addEdge("node", END)
    .compile();
}

describe("NodeOptions.mapResult", () => {
  it("maps what a synchronous node returns and what an asynchronous node's promise resolves to", async () => {
    const mapResult = (r: unknown) => ({ n: Number((r as { text: string }).text) });
    const sync = graphWith(() => ({ text: "2" }), { mapResult });
    const async = graphWith(async () => ({ text: "3" }), { mapResult });
    expect(await sync.invoke({})).toEqual({ n: 2 });
    expect(await async.invoke({})).toEqual({ n: 3 });
  });

  it("fails the attempt when it throws, and the retry policy runs the node again", async () => {
    let calls = 0;
    let maps = 0;
    const graph = graphWith(
      async () => {
        calls++;
        return { n: calls };
      },
      {
        retryPolicy: { maxAttempts: 3, initialInterval: 0, jitter: false, retryOn: () => true },
        mapResult: (r) => {
          maps++;
          if ((r as { n: number }).n < 3) throw new Error("not yet");
          return r;
        },
      },
    );
    expect(await graph.invoke({})).toEqual({ n: 3 });
    expect({ calls, maps }).toEqual({ calls: 3, maps: 3 });
    const failing = graphWith(() => ({ n: 1 }), {
      mapResult: () => {
        throw new Error("cannot map");
      },
    });
    await expect(failing.invoke({})).rejects.toThrow("cannot map");
  });

  it("takes no promise of its own: an asynchronous node with it creates as many promises as one without", async () => {
    const plain = graphWith(async () => ({ n: 1 }), {});
    const mapped = graphWith(async () => ({ n: 0 }), { mapResult: () => ({ n: 1 }) });
    await plain.invoke({});
    await mapped.invoke({});
    const withoutMap = await promisesDuring(() => plain.invoke({}));
    const withMap = await promisesDuring(() => mapped.invoke({}));
    expect(withMap).toBe(withoutMap);
  });
});
