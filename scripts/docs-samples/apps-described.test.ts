/**
 * What a newcomer reads about the five applications — the README and the studio's cards (each card
 * shows its graph's `description` from the repository's trellis.json, served as the assistant's
 * description) — says what each one does, and points at nothing outside a clone: no `../shared/seeds/`,
 * no "Seed 000…004" from the design documents the apps were ported from.
 */
import { readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const OUTSIDE = /\.\.\/shared\b|shared\/seeds|\bSeed 00\d\b/i;
const APPS = ["twi-author", "infra-pipeline", "tutor", "market-assistant", "inspection-reporter"];

describe("the five applications, as a newcomer meets them", () => {
  it("README.md and docs/*.md name no path outside the repository and no seed number", async () => {
    const pages = [
      "README.md",
      ...readdirSync(join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    const found: string[] = [];
    for (const page of pages) {
      const lines = (await readFile(join(ROOT, page), "utf8")).split("\n");
      lines.forEach((line, i) => {
        if (OUTSIDE.test(line)) found.push(`${page}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it("the studio's cards (trellis.json descriptions) say what each app does, with no seed number", async () => {
    const config = JSON.parse(await readFile(join(ROOT, "trellis.json"), "utf8")) as {
      graphs: Record<string, { name?: string; description?: string }>;
    };
    for (const app of APPS) {
      const description = config.graphs[app]?.description ?? "";
      expect(description, app).not.toMatch(OUTSIDE);
      expect(description.length, `${app} has a description`).toBeGreaterThan(40);
    }
  });

  it("the README's table has a row for each of the five, linking its README", async () => {
    const readme = await readFile(join(ROOT, "README.md"), "utf8");
    const table = readme.slice(
      readme.indexOf("## The five reference applications"),
      readme.indexOf("## Documentation"),
    );
    for (const app of APPS) expect(table, app).toContain(`| [\`${app}\`](apps/${app}/README.md) |`);
  });
});
