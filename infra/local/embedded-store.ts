/**
 * The embedded DynamoDB-compatible store (dynalite) and table creation from the shared
 * definitions. Used by `npm start` (on disk, under .data/) and by the tests (in memory).
 */
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  paginateScan,
  ResourceInUseException,
  type AttributeValue,
  type WriteRequest,
  waitUntilTableExists,
  waitUntilTableNotExists,
} from '@aws-sdk/client-dynamodb';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type dynalite from 'dynalite';
import { dynaliteWithDirectCalls } from './dynalite-direct';
import { addTransactWriteItems } from './dynalite-transactions';
import { createTableInput, OBSERVATIONS_TABLE, CREDITS_TABLE, type TableDef } from '../../shared/store/tables';

interface EmbeddedStore {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/** How long closing waits for the store's requests in progress (a scan of a large local table takes well under it). */
const CLOSE_DRAIN_MS = 10_000;

/**
 * Counts the requests dynalite is working on: from their arrival until its handler answers
 * (res.end), which it does after its database work even when the client has gone. A request whose
 * body never arrived whole is never worked on: it ends with its connection. Once closing, new
 * requests are not given to dynalite: they are answered 503 (the SDK's retryable throttling answer).
 */
const trackRequests = (server: ReturnType<typeof dynalite>) => {
  let pending = 0;
  let idle: (() => void) | undefined;
  const refuse = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(503, { 'content-type': 'application/x-amz-json-1.0', connection: 'close' });
    res.end('{"__type":"com.amazonaws.dynamodb.v20120810#ServiceUnavailableException","message":"the store is closing"}');
  };
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    pending++;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (--pending === 0) idle?.();
    };
    const end = res.end;
    res.end = function (this: ServerResponse, ...args: Parameters<ServerResponse['end']>) {
      settle();
      return end.apply(this, args);
    } as ServerResponse['end'];
    res.once('close', () => {
      if (!req.complete) settle();
    });
  });
  return {
    /** Stops handing requests to dynalite; resolves when none is in progress, or after `ms`. */
    drained: (ms: number) => {
      for (const handler of server.listeners('request')) server.removeListener('request', handler as () => void);
      server.on('request', refuse);
      return pending === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            idle = () => {
              clearTimeout(timer);
              resolve();
            };
          });
    },
  };
};

/**
 * Starts dynalite on 127.0.0.1.
 * @param port 0 picks a free port
 * @param path a folder to keep data in; absent = in memory
 */
const startEmbeddedStore = async (port = 0, path?: string): Promise<EmbeddedStore> => {
  const { server, call } = dynaliteWithDirectCalls({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  // The SDK's agent keeps idle sockets with no deadline of its own, so any keep-alive timeout here races
  // its next call on a loaded machine (the store's timer runs before it reads the call: ECONNRESET,
  // and a retry spent). Both ends are this machine's: idle sockets stay until their client lets go.
  server.keepAliveTimeout = 0;
  addTransactWriteItems(server, call);
  const inFlight = trackRequests(server);
  return {
    endpoint: `http://127.0.0.1:${actual}`,
    port: actual,
    // Every connection goes with it: close() alone waits for connections it does not count as idle,
    // and a bench's npm start once waited on 16 of its own SDK's keep-alive sockets for good.
    // But first the requests it is still working on finish: dynalite closes its database when its
    // server closes, and a scan or query still reading it threw "Iterator is not open" out of the
    // process (npm start's Ctrl-C after traffic: a client that went away leaves its request running).
    close: async () => {
      await inFlight.drained(CLOSE_DRAIN_MS);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
};

/** Table names of one stack of tables. */
interface TableNames {
  observations: string;
  credits: string;
}

/**
 * A table of an older data folder that lacks an index its definition now has: dynalite cannot add an
 * index to a table, so the items are read, the table made again from its definition, and the items
 * written back (DynamoDB adds the index itself, through the CDK deploy).
 */
const rebuildTable = async (client: DynamoDBClient, def: TableDef, name: string): Promise<void> => {
  const items: Array<Record<string, AttributeValue>> = [];
  for await (const page of paginateScan({ client }, { TableName: name })) items.push(...(page.Items ?? []));
  // Dynalite deletes and creates a table in steps of its own (DELETING, CREATING): wait for each.
  const waiting = { client, minDelay: 1, maxWaitTime: 60 };
  await client.send(new DeleteTableCommand({ TableName: name }));
  await waitUntilTableNotExists(waiting, { TableName: name });
  await client.send(new CreateTableCommand(createTableInput(def, name)));
  await waitUntilTableExists(waiting, { TableName: name });
  for (let i = 0; i < items.length; i += 25) {
    let pending: Record<string, WriteRequest[]> | undefined = { [name]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (pending && Object.keys(pending).length) pending = (await client.send(new BatchWriteItemCommand({ RequestItems: pending }))).UnprocessedItems;
  }
};

/** Creates both tables if they do not exist yet, and gives an older one the indexes it lacks (idempotent). */
const ensureTables = async (endpoint: string, names: TableNames): Promise<void> => {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const [def, name] of [
      [OBSERVATIONS_TABLE, names.observations],
      [CREDITS_TABLE, names.credits],
    ] as const) {
      try {
        await client.send(new CreateTableCommand(createTableInput(def, name)));
      } catch (err) {
        if (!(err instanceof ResourceInUseException)) throw err;
      }
      const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
      const has = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
      if ((def.globalIndexes ?? []).some((i) => !has.has(i.name))) await rebuildTable(client, def, name);
    }
  } finally {
    client.destroy();
  }
};

export { startEmbeddedStore, ensureTables };
export type { EmbeddedStore, TableNames };
