/**
 * An older data folder (`npm start`'s .data/) whose credit table was made before the sales index:
 * ensureTables gives it the index without losing an item. Dynalite cannot add an index to a table,
 * so the table is made again and its items written back.
 */
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore } from '../../infra/local/embedded-store';
import { createDocumentClient } from '../../shared/store/client';
import { CREDITS_SALES_INDEX, CREDITS_TABLE, CREDITS_WATCH_INDEX, createTableInput } from '../../shared/store/tables';

describe('embedded store: a data folder from before an index', () => {
  it('gains the credit table index it lacks and keeps every item, across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'store-upgrade-'));
    const names = { observations: 'observations', credits: 'credits' };
    try {
      let store = await startEmbeddedStore(0, dir);
      const client = new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
      // The credit table as it was made before: the watch index only.
      const old = createTableInput(
        { ...CREDITS_TABLE, globalIndexes: CREDITS_TABLE.globalIndexes!.filter((i) => i.name === CREDITS_WATCH_INDEX) },
        names.credits,
      );
      await client.send(new CreateTableCommand(old));
      // CreateTable answers CREATING (dynalite too, its ACTIVE a tick later): write only once it is ACTIVE, as on AWS.
      await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 0.1 }, { TableName: names.credits });
      const doc = createDocumentClient({ DYNAMODB_ENDPOINT: store.endpoint, AWS_REGION: 'us-east-1' });
      const items = Array.from({ length: 60 }, (_, i) => ({ pk: `KEY#${i % 7}`, sk: `USAGE#2026-11#r${i}`, credits: i }));
      const settled = { pk: 'X402#0xabc', sk: 'NONCE#0x01', state: 'SETTLED', gsi2pk: 'X402SALE#2026-11#3', gsi2sk: '2026-11-20T00:00:00.000Z#0xabc#0x01' };
      for (const Item of [...items, settled]) await doc.send(new PutCommand({ TableName: names.credits, Item }));
      doc.destroy();
      client.destroy();
      await store.close();

      store = await startEmbeddedStore(0, dir);
      await ensureTables(store.endpoint, names);
      const after = new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
      const { Table } = await after.send(new DescribeTableCommand({ TableName: names.credits }));
      expect((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort()).toEqual([CREDITS_WATCH_INDEX, CREDITS_SALES_INDEX].sort());
      const doc2 = createDocumentClient({ DYNAMODB_ENDPOINT: store.endpoint, AWS_REGION: 'us-east-1' });
      expect((await doc2.send(new ScanCommand({ TableName: names.credits, Select: 'COUNT' }))).Count).toBe(items.length + 1);
      const sales = await doc2.send(
        new QueryCommand({
          TableName: names.credits,
          IndexName: CREDITS_SALES_INDEX,
          KeyConditionExpression: 'gsi2pk = :p',
          ExpressionAttributeValues: { ':p': settled.gsi2pk },
        }),
      );
      // the index projects the sale's fields and the keys (shared/store/tables.ts), not the claim's state
      const { state: _state, ...projected } = settled;
      expect(sales.Items).toEqual([projected]);
      const key3 = await doc2.send(
        new QueryCommand({ TableName: names.credits, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'KEY#3' } }),
      );
      expect(key3.Items?.map((i) => i.credits).sort((a, b) => a - b)).toEqual(items.filter((i) => i.pk === 'KEY#3').map((i) => i.credits));
      doc2.destroy();
      after.destroy();
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
