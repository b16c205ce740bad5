import { TrellisError } from "@trellis/checkpoint";

/**
 * Imports a module that needs an optional dependency (the PostgreSQL or Redis driver). A project that
 * stays on SQLite never installs those drivers, so they load only when the config names them; when one is
 * missing the error says which packages to install instead of Node's bare ERR_MODULE_NOT_FOUND.
 *
 * @example
 * const { RedisEventHub } = await importOptional(() => import("../streams/redis-fan-out.js"), {
 *   feature: 'queue "redis"',
 *   packages: ["ioredis"],
 * });
 */
export async function importOptional<M>(
  load: () => Promise<M>,
  needs: { feature: string; packages: readonly string[] },
): Promise<M> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackage(error);
    if (missing === undefined || !needs.packages.some((p) => missing === p || missing.startsWith(`${p}/`))) {
      throw error;
    }
    throw new TrellisError(
      "INVALID_CONFIG",
      `The config uses ${needs.feature}, which needs the package ${missing}; it is not installed. ` +
        `Install it in your project: npm install ${needs.packages.join(" ")}`,
      { cause: error },
    );
  }
}

/** The package a failed import could not find, from Node's ERR_MODULE_NOT_FOUND message. */
function missingPackage(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== "ERR_MODULE_NOT_FOUND") return undefined;
  const name = /Cannot find (?:package|module) '([^']+)'/.exec(error.message)?.[1];
  if (name === undefined) return undefined;
  // a path like /app/node_modules/pg/index.js names the package after its last node_modules
  const afterModules = name.split("node_modules/").at(-1) ?? name;
  return /^(?:@[^/]+\/)?[^/]+/.exec(afterModules)?.[0] ?? name;
}
