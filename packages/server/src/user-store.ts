import type { SearchItem, Store, StoreItem } from "@trellis/checkpoint";

/**
 * The label under which a user's items live when auth is on: `user:<id>`, the id percent-encoded so it
 * holds no `.` (labels may not).
 *
 * @example
 * userLabel("ana@example.com"); // "user:ana%40example%2Ecom"
 */
export function userLabel(user: string): string {
  return `user:${encodeURIComponent(user).replaceAll(".", "%2E")}`;
}

function strip<T extends StoreItem>(item: T): T {
  return { ...item, namespace: item.namespace.slice(1) };
}

/**
 * The store as `user` sees it when the server's auth is on: every namespace is put under
 * {@link userLabel}(user) on the way in and shown without it on the way out, so no user can read,
 * list, overwrite or delete another user's items, and each one uses the namespaces it likes. A graph
 * run started by the user gets the same view as `ctx.store`. `null` (auth off): the store itself.
 *
 * @example
 * const mine = storeFor(store, "ana");
 * await mine.put(["memories"], "m1", { text: "tea" }); // stored under ["user:ana", "memories"]
 */
export function storeFor(store: Store, user: string | null): Store {
  if (user === null) return store;
  const label = userLabel(user);
  const inside = (ns: readonly string[]) => [label, ...ns];
  return {
    get: async (namespace, key, options) => {
      const item = await store.get(inside(namespace), key, options);
      return item ? strip(item) : null;
    },
    put: (namespace, key, value, options) => store.put(inside(namespace), key, value, options),
    delete: (namespace, key) => store.delete(inside(namespace), key),
    search: async (prefix, options) => (await store.search(inside(prefix), options)).map(strip<SearchItem>),
    listNamespaces: async (options = {}) => {
      const namespaces = await store.listNamespaces({
        ...options,
        prefix: inside(options.prefix ?? []),
        ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth + 1 } : {}),
      });
      // a suffix of wildcards may have matched the user label itself: such a namespace is too short
      const min = options.suffix?.length ?? 0;
      return namespaces.filter((ns) => ns.length - 1 >= min).map((ns) => ns.slice(1));
    },
    // sweeping is the server's, for every user at once
    sweepExpired: async () => 0,
  };
}
