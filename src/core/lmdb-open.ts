import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase, type RootDatabaseOptions } from 'lmdb';
import { StorageFullError, type StorageGuard } from './storage-guard.js';

const ASYNC_WRITES = new Set(['put', 'remove', 'ifNoExists', 'ifVersion', 'clearAsync', 'drop', 'batch']);
const SYNC_WRITES = new Set(['putSync', 'removeSync', 'clearSync', 'dropSync']);
const TRANSACTIONS = new Set(['transaction', 'childTransaction', 'transactionSync']);

const noop = () => undefined;

/**
 * Opens an LMDB environment whose every write passes the storage guard: refused with
 * 507 STORAGE_FULL before lmdb-js sees it while the disk is under the reserve, and a
 * failure below the guard becomes a 507 too (with lmdb-js's stray commitError
 * promise handled). Reads are untouched. A new environment is not created on a full
 * disk (lmdb-js dies of SIGBUS mapping a fresh lock file on a full tmpfs): the caller
 * gets the 507 and its module runs without the store until a restart.
 */
export function openGuardedLmdb(options: RootDatabaseOptions & { path: string }, guard: StorageGuard): RootDatabase {
  const path = options.path;
  if (!existsSync(join(path, 'data.mdb'))) {
    try {
      guard.assertWritable();
    } catch (err) {
      if (err instanceof StorageFullError) guard.needRestart(`${path} could not be created on a full disk`);
      throw err;
    }
  }
  mkdirSync(path, { recursive: true });
  return guarded(open(options), guard);
}

/** Wraps a root or named database so writes go through the guard; openDB results are wrapped too. */
function guarded<T extends object>(db: T, guard: StorageGuard): T {
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (prop === 'openDB') return (...args: unknown[]) => guarded(fn.apply(target, args) as object, guard);
      if (ASYNC_WRITES.has(prop)) return (...args: unknown[]) => asyncWrite(guard, () => fn.apply(target, args));
      if (SYNC_WRITES.has(prop)) return (...args: unknown[]) => syncWrite(guard, () => fn.apply(target, args));
      if (TRANSACTIONS.has(prop)) {
        return (callback: () => unknown, ...rest: unknown[]) => {
          // Writes inside the callback were admitted with the transaction: checking them
          // again could refuse half of it.
          const inner = () => {
            guard.transactionDepth++;
            try {
              return callback();
            } finally {
              guard.transactionDepth--;
            }
          };
          return prop === 'transactionSync' ? syncWrite(guard, () => fn.call(target, inner, ...rest)) : asyncWrite(guard, () => fn.call(target, inner, ...rest));
        };
      }
      return fn.bind(target);
    },
  });
}

function asyncWrite(guard: StorageGuard, write: () => unknown): Promise<unknown> {
  let p: Promise<unknown>;
  try {
    guard.assertWritable();
    p = Promise.resolve(write());
  } catch (err) {
    p = Promise.reject(guard.translate(err) as Error);
  }
  const out = p.catch((err: unknown) => {
    throw guard.translate(err);
  });
  // A caller that fires and forgets (void db.put) must not turn a full disk into an
  // unhandled rejection that ends the process; one that awaits still gets the error.
  out.catch(noop);
  return out;
}

function syncWrite(guard: StorageGuard, write: () => unknown): unknown {
  guard.assertWritable();
  try {
    return write();
  } catch (err) {
    throw guard.translate(err);
  }
}
