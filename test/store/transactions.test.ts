/**
 * TransactWriteItems on the embedded store (emulated; dynalite has none): all writes or none, and
 * a refused condition comes back as TransactionCanceledException with per-item reasons, as from DynamoDB.
 */
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store';

describe('TransactWriteItems on the embedded store', () => {
  let store: EmbeddedStore;
  let doc: DynamoDBDocumentClient;
  const TableName = 'tx-credits';
  beforeAll(async () => {
    store = await startEmbeddedStore();
    await ensureTables(store.endpoint, { observations: 'tx-obs', credits: TableName });
    doc = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } }),
    );
    await doc.send(new PutCommand({ TableName, Item: { pk: 'KEY#1', sk: 'PLAN', credits_left: 1 } }));
  });
  afterAll(() => store?.close());

  const debitWithEntry = (entry: string) =>
    doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: { pk: 'KEY#1', sk: entry } } },
          {
            Update: {
              TableName,
              Key: { pk: 'KEY#1', sk: 'PLAN' },
              UpdateExpression: 'SET credits_left = credits_left - :c',
              ConditionExpression: 'credits_left >= :c',
              ExpressionAttributeValues: { ':c': 1 },
            },
          },
        ],
      }),
    );

  it('applies every write when every condition holds', async () => {
    await debitWithEntry('USAGE#a');
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#1', sk: 'PLAN' } }))).Item?.credits_left).toBe(0);
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#1', sk: 'USAGE#a' } }))).Item).toBeDefined();
  });

  it('applies none when one condition fails, and says which', async () => {
    const err = await debitWithEntry('USAGE#b').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransactionCanceledException);
    expect((err as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#1', sk: 'USAGE#b' } }))).Item).toBeUndefined();
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#1', sk: 'PLAN' } }))).Item?.credits_left).toBe(0);
  });

  it('restores an item it updated when another write of the transaction is refused', async () => {
    await doc.send(new PutCommand({ TableName, Item: { pk: 'KEY#2', sk: 'PLAN', credits_left: 5, note: 'kept' } }));
    const err = await doc
      .send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName, Item: { pk: 'KEY#2', sk: 'USAGE#x' }, ConditionExpression: 'attribute_exists(pk)' } },
            {
              Update: {
                TableName,
                Key: { pk: 'KEY#2', sk: 'PLAN' },
                UpdateExpression: 'SET credits_left = :z REMOVE note',
                ExpressionAttributeValues: { ':z': 0 },
              },
            },
          ],
        }),
      )
      .catch((e: unknown) => e);
    expect((err as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['ConditionalCheckFailed', 'None']);
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#2', sk: 'PLAN' }, ConsistentRead: true }))).Item).toEqual({
      pk: 'KEY#2',
      sk: 'PLAN',
      credits_left: 5,
      note: 'kept',
    });
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#2', sk: 'USAGE#x' } }))).Item).toBeUndefined();
  });
});
