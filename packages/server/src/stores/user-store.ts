import { checkNamespace, type SearchItem, STORE_BOUNDS, type Store, type StoreItem } from "@trellis/checkpoint";

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
  // the user's namespace is checked as the user wrote it, within what is left beside the label, so no
  // error names the label (or counts it)
  const room = {
    labels: STORE_BOUNDS.namespaceLabels - 1,
    bytes: STORE_BOUNDS.namespaceBytes - new TextEncoder().encode(label).length - 1,
  };
  const inside = (ns: readonly string[], what: string, allowEmpty = false) => {
    checkNamespace(ns, what, allowEmpty, room);
    return [label, ...ns];
  };
  return {
    get: async (namespace, key, options) => {
      const item = await store.get(inside(namespace, "namespace"), key, options);
      return item ? strip(item) : null;
    },
    put: (namespace, key, value, options) => store.put(inside(namespace, "namespace"), key, value, options),
    delete: (namespace, key) => store.delete(inside(namespace, "namespace"), key),
    search: async (prefix, options) =>
      (await store.search(inside(prefix, "namespace prefix", true), options)).map(strip<SearchItem>),
    listNamespaces: async (options = {}) => {
      if (options.suffix !== undefined) checkNamespace(options.suffix, "suffix", true, room);
      const namespaces = await store.listNamespaces({
        ...options,
        prefix: inside(options.prefix ?? [], "prefix", true),
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
