import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { type StoredMessage, toStoredMessage } from "../message-convert.js";
import { classListOf, mergeStored, messagesStateReducer, REMOVE_ALL_MESSAGES } from "../messages-reducer.js";

const ids = (list: readonly StoredMessage[]) => list.map((m) => `${m.id}:${String(m.content)}`);
const msg = (id: string, content: string) => toStoredMessage(new AIMessage({ id, content })) as StoredMessage;

describe("merging stored messages", () => {
  it("two lists that extend one base keep their own ids (the index they share is checked against each)", () => {
    const base = mergeStored([], [msg("a", "1")]).value;
    const left = mergeStored(base, [msg("x", "left")]).value;
    const right = mergeStored(base, [msg("y", "right")]).value;
    // x is in left only: replacing it in left replaces, writing it to right appends
    expect(ids(mergeStored(left, [msg("x", "left again")]).value)).toEqual(["a:1", "x:left again"]);
    expect(ids(mergeStored(right, [msg("x", "new")]).value)).toEqual(["a:1", "y:right", "x:new"]);
    expect(ids(mergeStored(right, [msg("y", "right again")]).value)).toEqual(["a:1", "y:right again"]);
    expect(mergeStored(left, [msg("z", "z")]).appended?.map((m) => m.id)).toEqual(["z"]);
  });

  it("a list read as classes is a new array each read, and a list that extends it reuses its instances", () => {
    const base = mergeStored([], [msg("a", "1"), msg("b", "2")]).value;
    const read = classListOf(base);
    read.push(new AIMessage({ id: "pushed", content: "by a node" }));
    expect(classListOf(base).map((m) => m.id)).toEqual(["a", "b"]);
    const extended = mergeStored(base, [msg("c", "3")]).value;
    const next = classListOf(extended);
    expect(next.map((m) => `${m.id}:${String(m.content)}`)).toEqual(["a:1", "b:2", "c:3"]);
    expect(next[0]).toBe(read[0]);
    // a replace is not an append: the replaced message is read from the new list
    const replaced = mergeStored(extended, [msg("b", "two")]).value;
    expect(classListOf(replaced).map((m) => String(m.content))).toEqual(["1", "two", "3"]);
  });

  it("removes, clears and refuses to remove a message that is not there, as LangGraph's reducer", () => {
    const list = mergeStored([], [msg("a", "1"), msg("b", "2"), msg("c", "3")]).value;
    expect(ids(mergeStored(list, [new RemoveMessage({ id: "b" })]).value)).toEqual(["a:1", "c:3"]);
    expect(ids(mergeStored(list, [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), msg("d", "4")]).value)).toEqual([
      "d:4",
    ]);
    expect(() => mergeStored(list, [new RemoveMessage({ id: "nope" })])).toThrow(/doesn't exist \('nope'\)/);
  });

  it("messagesStateReducer works on LangChain classes and gives ids to messages without one", () => {
    const out = messagesStateReducer([new HumanMessage({ id: "h", content: "hi" })], [new AIMessage("yo")]);
    expect(out.map((m) => m.getType())).toEqual(["human", "ai"]);
    expect(out[1]?.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
