import { describe, expect, it } from "vitest";
import { checkFlags, parseArgs, stringFlag } from "./args.js";
import { CliError } from "./io.js";

describe("parseArgs", () => {
  it("splits the command, positionals, value flags and switches", () => {
    const a = parseArgs(["run", "tutor", "--input", '{"a":1}', "--json", "-t", "t1", "--config=x.json"]);
    expect(a.command).toBe("run");
    expect(a.positionals).toEqual(["tutor"]);
    expect(Object.fromEntries(a.flags)).toEqual({ input: '{"a":1}', json: true, thread: "t1", config: "x.json" });
  });

  it("rejects a value flag without a value and unknown short options with exit code 2", () => {
    expect(() => parseArgs(["run", "g", "--input"])).toThrowError(/--input needs a value/);
    try {
      parseArgs(["run", "-z"]);
    } catch (error) {
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(2);
    }
  });

  it("checkFlags names an option the command does not take; stringFlag refuses a bare switch", () => {
    expect(() => checkFlags(parseArgs(["draw", "g", "--thread", "x"]), ["json"])).toThrowError(
      "trellis draw: unknown option --thread.",
    );
    expect(() => stringFlag(parseArgs(["threads", "--limit=5", "--graph=g"]), "limit")).not.toThrow();
    const withSwitch = parseArgs(["threads"]);
    withSwitch.flags.set("limit", true);
    expect(() => stringFlag(withSwitch, "limit")).toThrowError(/needs a value/);
  });
});
