// Module resolution hooks for a spawned `trellis` process (registered by module-log.mjs): each module
// whose URL contains TRELLIS_TEST_MODULE_MATCH is appended, one URL a line, to TRELLIS_TEST_MODULE_LOG.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const log = process.env.TRELLIS_TEST_MODULE_LOG;
  const match = process.env.TRELLIS_TEST_MODULE_MATCH;
  if (log && match && resolved.url.includes(match)) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
