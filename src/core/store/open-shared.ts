/**
 * One Store per database path per process: several plugin instances (one per project directory
 * in `opencode serve`) share it, and it closes when the last one lets go.
 */
import { Store } from './store.js';
import type { StoreOptions } from './store.js';

const shared = new Map<string, { store: Store; users: number }>();

/** `open` decides how a first user opens it (the plugin passes the checked, non-blocking opener). */
export function acquireStore(options: StoreOptions, open: (options: StoreOptions) => Store = Store.open): Store {
  const entry = shared.get(options.path);
  if (entry) {
    entry.users += 1;
    return entry.store;
  }
  const store = open(options);
  shared.set(options.path, { store, users: 1 });
  return store;
}

export function releaseStore(store: Store): void {
  const entry = shared.get(store.path);
  if (!entry || entry.store !== store) return;
  entry.users -= 1;
  if (entry.users <= 0) {
    shared.delete(store.path);
    store.close();
  }
}
