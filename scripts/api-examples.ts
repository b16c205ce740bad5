/**
 * Lists the public exports (what each published package's `exports` map exposes) whose doc comment has
 * no `@example`, per package — the API reference (`npm run docs:api`) shows each export with its
 * example. `npm run docs:examples` prints the list; `-- --strict` exits 1 when any is missing.
 *
 * @example
 * // npm run docs:examples
 * // @trellis/core: 94 exports, 35 without @example: Clock, AnyChannel, …
 */
import { join } from "node:path";
import ts from "typescript";
import { publishablePackages, REPO_ROOT } from "./pack-packages.js";

/** Source entry files of a package, from the `@trellis/source` conditions of its export map. */
function sourceEntries(dir: string, exports: Record<string, unknown> | undefined): string[] {
  return Object.values(exports ?? {})
    .map((target) => (target as Record<string, string>)["@trellis/source"])
    .filter((path): path is string => typeof path === "string")
    .map((path) => join(dir, path));
}

const packages = await publishablePackages();
const entries = packages.flatMap((p) =>
  sourceEntries(p.dir, p.manifest.exports).map((file) => ({ name: p.manifest.name, file })),
);
const program = ts.createProgram(
  entries.map((e) => e.file),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ["@trellis/source"],
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
  },
);
const checker = program.getTypeChecker();
let missingTotal = 0;
for (const entry of entries) {
  const source = program.getSourceFile(entry.file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) continue;
  const exported = checker.getExportsOfModule(module);
  const missing = exported
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return !target.getJsDocTags(checker).some((tag) => tag.name === "example");
    })
    .map((symbol) => symbol.name);
  missingTotal += missing.length;
  const where = `${entry.name} (${entry.file.slice(REPO_ROOT.length + 1)})`;
  console.log(
    `${where}: ${exported.length} exports, ${missing.length} without @example${missing.length ? `: ${missing.join(", ")}` : ""}`,
  );
}
if (process.argv.includes("--strict") && missingTotal > 0) process.exitCode = 1;
