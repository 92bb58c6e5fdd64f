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
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { addTransactWriteItems } from './dynalite-transactions';
import { createTableInput, OBSERVATIONS_TABLE, CREDITS_TABLE, type TableDef } from '../../shared/store/tables';

interface EmbeddedStore {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Starts dynalite on 127.0.0.1.
 * @param port 0 picks a free port
 * @param path a folder to keep data in; absent = in memory
 */
const startEmbeddedStore = async (port = 0, path?: string): Promise<EmbeddedStore> => {
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  // The SDK's agent keeps idle sockets with no deadline of its own, so any keep-alive timeout here races
  // its next call on a loaded machine (the store's timer runs before it reads the call: ECONNRESET,
  // and a retry spent). Both ends are this machine's: idle sockets stay until their client lets go.
  server.keepAliveTimeout = 0;
  addTransactWriteItems(server, `http://127.0.0.1:${actual}`);
  return {
    endpoint: `http://127.0.0.1:${actual}`,
    port: actual,
    // Every connection goes with it: close() alone waits for connections it does not count as idle,
    // and a bench's npm start once waited on 16 of its own SDK's keep-alive sockets for good.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
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
