/**
 * A node that declares no config parameter is called without one and its config is built only when
 * read (getConfig(), a child runnable); a node that may read a second argument gets it as before.
 */
import { describe, expect, it } from "vitest";
import { Annotation, END, getConfig, type LangGraphRunnableConfig, START, StateGraph } from "../index.js";
import { mayReadConfigArgument } from "../node-arity.js";

const State = Annotation.Root({ seen: Annotation<unknown>() });

async function seenBy(node: (state: typeof State.State, config: LangGraphRunnableConfig) => unknown) {
  const graph = new StateGraph(State).addNode("node", node).addEdge(START, "node").addEdge("node", END).compile();
  const out = await graph.invoke({}, { configurable: { user_id: "u1" } });
  return out.seen;
}

describe("mayReadConfigArgument", () => {
  it("says no only for functions that cannot read a second argument", () => {
    const cases: Array<[(...args: never[]) => unknown, boolean]> = [
      [() => 1, false],
      [(s: unknown) => s, false],
      [async (s: unknown) => s, false],
      [({ a }: { a: number }) => a, false],
      [([a]: number[]) => a, false],
      [(s: unknown, c: unknown) => [s, c], true],
      [(s: unknown, c: unknown = {}) => [s, c], true],
      [(...args: unknown[]) => args, true],
      [({ a = 1 }: { a?: number }) => a, true],
      [
        function (s: unknown) {
          // biome-ignore lint/complexity/noArguments: reading `arguments` is the case tested
          return [s, arguments[1]];
        },
        true,
      ],
      [
        function named(s: unknown) {
          return s;
        },
        false,
      ],
      [((s: unknown, c: unknown) => [s, c]).bind(null, 1), true],
    ];
    for (const [fn, expected] of cases)
      expect([fn.toString(), mayReadConfigArgument(fn)]).toEqual([fn.toString(), expected]);
  });
});

describe("a node's config", () => {
  it("reaches a node with a default or rest config parameter, or one that reads `arguments`", async () => {
    expect(await seenBy((_s, config = {}) => ({ seen: config.configurable?.user_id }))).toBe("u1");
    expect(
      await seenBy((...args: unknown[]) => ({ seen: (args[1] as LangGraphRunnableConfig).configurable?.user_id })),
    ).toBe("u1");
    expect(
      await seenBy(function (_s) {
        // biome-ignore lint/complexity/noArguments: reading `arguments` is the case tested
        return { seen: (arguments[1] as LangGraphRunnableConfig).configurable?.user_id };
      }),
    ).toBe("u1");
  });

  it("is read through getConfig() by a node without a config parameter, the same as one with it gets", async () => {
    const lazy = (await seenBy((_s) => {
      const config = getConfig();
      return { seen: { same: config === getConfig(), configurable: config.configurable, metadata: config.metadata } };
    })) as { same: boolean; configurable: Record<string, unknown>; metadata: Record<string, unknown> };
    const given = (await seenBy((_s, config) => ({
      seen: { same: config === getConfig(), configurable: config.configurable, metadata: config.metadata },
    }))) as typeof lazy;
    expect(lazy.same).toBe(true);
    expect(given.same).toBe(true);
    expect(lazy.configurable.user_id).toBe("u1");
    const shape = (v: typeof lazy) => ({
      configurable: Object.keys(v.configurable).sort(),
      metadata: Object.keys(v.metadata).sort(),
    });
    expect(shape(lazy)).toEqual(shape(given));
    expect(lazy.metadata.langgraph_node).toBe("node");
  });

  it("makes a graph invoked by a node without a config parameter run nested in the node's run", async () => {
    const Child = Annotation.Root({ seen: Annotation<unknown>() });
    const child = new StateGraph(Child)
      .addNode("inner", () => ({ seen: getConfig().metadata?.langgraph_checkpoint_ns }))
      .addEdge(START, "inner")
      .addEdge("inner", END)
      .compile();
    const seen = await seenBy(async (_s) => ({ seen: (await child.invoke({})).seen }));
    // a nested run's tasks carry the parent task's namespace before their own
    expect(String(seen)).toMatch(/^node:[^|]+\|inner:/);
  });
});
