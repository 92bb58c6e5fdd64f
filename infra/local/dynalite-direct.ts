/**
 * Dynalite with its operations callable in-process: the transaction emulation
 * (dynalite-transactions.ts) applies its writes through the same validation and actions the HTTP
 * handler runs, without a round trip through the AWS SDK and HTTP to itself (two per debit: half
 * the store's work during a release's deliveries). Dynalite keeps its store private, so it is
 * caught as dynalite creates it.
 */
import { createRequire } from 'node:module';
import dynalite from 'dynalite';

const require = createRequire(import.meta.url);

interface DynaliteError {
  statusCode?: number;
  body?: { __type?: string; message?: string };
}

/** One operation (PutItem, UpdateItem, DeleteItem …) on wire-format input; rejects as the SDK would name the error. */
type DirectCall = (operation: 'PutItem' | 'UpdateItem' | 'DeleteItem', input: Record<string, unknown>) => Promise<{ Attributes?: Record<string, unknown> }>;

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/** Dynalite's server and a way to run its operations in-process. */
const dynaliteWithDirectCalls = (options: Parameters<typeof dynalite>[0]): { server: ReturnType<typeof dynalite>; call: DirectCall } => {
  const db = require('dynalite/db') as { create: (o: unknown) => unknown };
  const validations = require('dynalite/validations') as {
    checkTypes: (data: unknown, types: unknown) => Record<string, unknown>;
    checkValidations: (data: unknown, types: unknown, custom: unknown, store: unknown) => void;
  };
  const create = db.create;
  let store: unknown;
  db.create = (o: unknown) => {
    store = create(o);
    return store;
  };
  let server: ReturnType<typeof dynalite>;
  try {
    server = dynalite(options);
  } finally {
    db.create = create;
  }
  // The SDK names a service error by the part of __type after '#'.
  const asError = (err: DynaliteError) => {
    if (!err.statusCode) return err;
    const type = String(err.body?.__type ?? 'InternalServerError');
    return Object.assign(new Error(err.body?.message ?? type), { name: type.slice(type.indexOf('#') + 1) });
  };
  const call: DirectCall = (operation, input) =>
    new Promise((resolve, reject) => {
      const name = lowerFirst(operation);
      const rules = require(`dynalite/validations/${name}`) as { types: unknown; custom: unknown };
      const action = require(`dynalite/actions/${name}`) as (s: unknown, d: unknown, cb: (err: DynaliteError | null, out: unknown) => void) => void;
      try {
        const data = validations.checkTypes(input, rules.types);
        validations.checkValidations(data, rules.types, rules.custom, store);
        action(store, data, (err, out) => (err ? reject(asError(err)) : resolve(out as { Attributes?: Record<string, unknown> })));
      } catch (err) {
        reject(asError(err as DynaliteError));
      }
    });
  return { server, call };
};

export { dynaliteWithDirectCalls };
export type { DirectCall };
