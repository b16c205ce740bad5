import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { type StoredMessage, toLangChainMessage, toStoredMessage } from "../message-convert.js";
import { classListOf, mergeStored } from "../messages-reducer.js";
import { ObjectLink } from "../object-link.js";

describe("the links between a message's two forms", () => {
  it("are invisible to keys, spreads, JSON and structured clones", () => {
    const instance = new AIMessage({ id: "a1", content: "hello" });
    const stored = toStoredMessage(instance) as StoredMessage;
    expect(Object.keys(stored).sort()).toEqual(["content", "id", "role"]);
    expect(JSON.parse(JSON.stringify(stored))).toEqual({ id: "a1", role: "assistant", content: "hello" });
    expect(structuredClone(stored)).toEqual({ id: "a1", role: "assistant", content: "hello" });
    // a copy of either form (a spread, another instance of the same id) is not linked to the other form
    const copy = { ...stored, content: "changed" };
    expect(String(toLangChainMessage(copy).content)).toBe("changed");
    const instanceCopy = new AIMessage({ id: "a1", content: "changed too" });
    expect((toStoredMessage(instanceCopy) as StoredMessage).content).toBe("changed too");
    // the linked forms keep their identity both ways
    expect(toLangChainMessage(stored)).toBe(instance);
    expect(toStoredMessage(instance)).toBe(stored);
  });

  it("hold for frozen messages and lists (as a checkpoint's values are read back)", () => {
    const stored = Object.freeze({ id: "h1", role: "user", content: "hi" }) as StoredMessage;
    const instance = toLangChainMessage(stored);
    expect(instance).toBeInstanceOf(HumanMessage);
    expect(toLangChainMessage(stored)).toBe(instance);
    expect(toStoredMessage(instance)).toBe(stored);
    const list = Object.freeze([stored, Object.freeze({ id: "a2", role: "assistant", content: "yes" })]);
    const read = classListOf(list as readonly StoredMessage[]);
    expect(read.map((m) => m.id)).toEqual(["h1", "a2"]);
    expect(classListOf(list as readonly StoredMessage[])[1]).toBe(read[1]);
    const next = mergeStored(list as readonly StoredMessage[], [new AIMessage({ id: "a3", content: "more" })]);
    expect(next.appended?.map((m) => m.id)).toEqual(["a3"]);
    expect(classListOf(next.value).map((m) => m.id)).toEqual(["h1", "a2", "a3"]);
  });

  it("an ObjectLink keeps one value per object, stamped on it or, for a sealed object, in a WeakMap", () => {
    const link = new ObjectLink<number>();
    const other = new ObjectLink<number>();
    const open = { a: 1 };
    const sealed = Object.seal({});
    link.set(open, 1);
    link.set(sealed, 2);
    link.set(open, 3);
    other.set(open, 9);
    expect([link.get(open), link.get(sealed), link.get({}), other.get(open), other.get(sealed)]).toEqual([
      3,
      2,
      undefined,
      9,
      undefined,
    ]);
    // nothing of the link shows: keys, symbols, JSON, copies
    expect(Reflect.ownKeys(open)).toEqual(["a"]);
    expect(JSON.stringify(open)).toBe('{"a":1}');
    expect(link.get({ ...open })).toBeUndefined();
    expect(link.get(Object.assign({}, open))).toBeUndefined();
    expect(link.get(structuredClone(open))).toBeUndefined();
    // an object frozen after it was linked keeps its link
    Object.freeze(open);
    expect(link.get(open)).toBe(3);
  });
});
