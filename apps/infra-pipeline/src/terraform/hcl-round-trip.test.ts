/**
 * Law: what the writer renders, the parser reads back — every literal value (any text, including quotes,
 * control characters, lone surrogates and `${`), nested objects and lists — so the review judges
 * exactly what the IaC agent meant to write.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { attr, block, type HclWritable, renderHcl } from "./hcl-writer.js";
import { evaluate, loadModule } from "./terraform-module.js";

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 20 }),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform interpolation, as text
  fc.constantFrom("${var.x}", "%{ if a }", 'a\\b"c', "tab\tnew\nline", "\b\f", "😀", "\ud800"),
);
const scalar: fc.Arbitrary<HclWritable> = fc.oneof(
  text,
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.boolean(),
  fc.constant(null),
);
const value: fc.Arbitrary<HclWritable> = fc.letrec<{ v: HclWritable }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.oneof(name, text), tie("v"), { maxKeys: 3 }),
  ),
})).v;

describe("HCL writer → parser", () => {
  it("round-trips attribute values inside a resource", () => {
    fc.assert(
      fc.property(fc.dictionary(name, value, { minKeys: 1, maxKeys: 5 }), (attributes) => {
        const content = renderHcl([
          block(
            "resource",
            ["aws_s3_bucket", "x"],
            Object.entries(attributes).map(([k, v]) => attr(k, v)),
          ),
        ]);
        const mod = loadModule([{ path: "main.tf", content }]);
        expect(mod.errors).toEqual([]);
        const resource = mod.resources[0];
        const read = Object.fromEntries(
          Object.entries(resource?.block.attributes ?? {}).map(([k, a]) => [k, evaluate(mod, a.value)]),
        );
        expect(read).toEqual(attributes);
      }),
      { numRuns: 300 },
    );
  });

  it("reads a key named __proto__ as data, not as the object's prototype (a seed fast-check found)", () => {
    const tags = JSON.parse('{"__proto__": {"owner": "x"}, "env": "dev"}') as HclWritable;
    const content = renderHcl([block("resource", ["aws_s3_bucket", "x"], [attr("tags", tags)])]);
    const mod = loadModule([{ path: "main.tf", content }]);
    const read = evaluate(mod, mod.resources[0]?.block.attributes.tags?.value as never) as Record<string, unknown>;
    expect(Object.keys(read)).toEqual(["__proto__", "env"]);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(read).toEqual(tags);
  });
});
