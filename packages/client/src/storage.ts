import type { ReporterStorage } from "./api.js";

/** A reporter storage in memory (tests, simulations; nothing survives the process). O(1) per call. */
export function memoryStorage(): ReporterStorage & { readonly entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    read: async (key) => entries.get(key),
    write: async (key, value) => {
      entries.set(key, value);
    },
  };
}

/**
 * A reporter storage in the browser's `localStorage` (synchronous, about 5 MB per
 * origin), keys prefixed `<name>:`. Rejects when `localStorage` is unavailable
 * (private modes, disabled) or full (QuotaExceededError). O(size) per call.
 */
export function localStorageStorage(name: string): ReporterStorage {
  const store = (): Storage => {
    const local = (globalThis as { localStorage?: Storage }).localStorage;
    if (!local) throw new Error("localStorage is not available");
    return local;
  };
  return {
    read: async (key) => store().getItem(`${name}:${key}`) ?? undefined,
    write: async (key, value) => store().setItem(`${name}:${key}`, value),
  };
}

/**
 * A reporter storage in IndexedDB: database `name`, object store "reporter",
 * one value per key; a write resolves when its transaction has committed.
 * Rejects when IndexedDB is unavailable or the write fails (quota). O(size) per call.
 */
export function indexedDbStorage(name: string): ReporterStorage {
  let opened: Promise<IDBDatabase> | undefined;
  const db = (): Promise<IDBDatabase> =>
    (opened ??= new Promise<IDBDatabase>((resolve, reject) => {
      const factory = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
      if (!factory) throw new Error("IndexedDB is not available");
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore("reporter");
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    }).catch((error) => {
      opened = undefined;
      throw error;
    }));
  const run = async <T>(mode: IDBTransactionMode, use: (store: IDBObjectStore) => IDBRequest<T>) => {
    const transaction = (await db()).transaction("reporter", mode);
    const request = use(transaction.objectStore("reporter"));
    return new Promise<T>((resolve, reject) => {
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = transaction.onabort = () => reject(transaction.error ?? request.error);
    });
  };
  return {
    read: async (key) => (await run("readonly", (store) => store.get(key))) as string | undefined,
    write: async (key, value) => {
      await run("readwrite", (store) => store.put(value, key));
    },
  };
}
