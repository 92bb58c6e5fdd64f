/**
 * The embedded store's TransactWriteItems emulation when clients go away. It runs one transaction at
 * a time per item; under load a call waits its turn past the client's timeout, and the client (the
 * AWS SDK) destroys the request and retries it with the same ClientRequestToken. A request whose body
 * is slow, or abandoned half-sent, must not hold up the ones behind it (nor be applied, when
 * abandoned), and a retried token must not apply its writes twice.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store';

const TableName = 'tx-abandon-credits';
const TARGET = 'DynamoDB_20120810.TransactWriteItems';

/** A raw TransactWriteItems call that debits one credit with a usage entry, as the Pro lane does. */
const debitBody = (entry: string, token?: string) =>
  JSON.stringify({
    TransactItems: [
      { Put: { TableName, Item: { pk: { S: 'KEY#1' }, sk: { S: entry } } } },
      {
        Update: {
          TableName,
          Key: { pk: { S: 'KEY#1' }, sk: { S: 'PLAN' } },
          UpdateExpression: 'SET credits_left = credits_left - :c',
          ConditionExpression: 'credits_left >= :c',
          ExpressionAttributeValues: { ':c': { N: '1' } },
        },
      },
    ],
    ...(token ? { ClientRequestToken: token } : {}),
  });

/** Starts a raw call; returns the request (to write or destroy) and its answer's status. */
const rawCall = (endpoint: string, body: string) => {
  const url = new URL(endpoint);
  let answered: (status: number) => void = () => undefined;
  const status = new Promise<number>((resolve) => {
    answered = resolve;
  });
  const req = request(
    {
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/',
      headers: { 'x-amz-target': TARGET, 'content-type': 'application/x-amz-json-1.0', 'content-length': Buffer.byteLength(body) },
    },
    (res) => {
      res.resume();
      res.on('end', () => answered(res.statusCode ?? 0));
    },
  );
  req.on('error', () => answered(-1));
  return { req, status };
};

describe('TransactWriteItems emulation: abandoned and retried calls', () => {
  let store: EmbeddedStore;
  let doc: DynamoDBDocumentClient;
  beforeAll(async () => {
    store = await startEmbeddedStore();
    await ensureTables(store.endpoint, { observations: 'tx-abandon-obs', credits: TableName });
    doc = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: store.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
        maxAttempts: 1,
        requestHandler: { requestTimeout: 5_000, throwOnRequestTimeout: true },
      }),
    );
  });
  afterAll(() => store?.close());

  const creditsLeft = async () => (await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#1', sk: 'PLAN' } }))).Item?.credits_left;

  it('a call whose body is still arriving, or whose client went away half-way, does not hold up the calls behind it', async () => {
    await doc.send(new PutCommand({ TableName, Item: { pk: 'KEY#1', sk: 'PLAN', credits_left: 10 } }));
    // First in line: a call on the same item whose body is still arriving.
    const slowBody = debitBody('USAGE#slow');
    const slow = rawCall(store.endpoint, slowBody);
    slow.req.write(slowBody.slice(0, 10));
    // Second: a call whose client gives up before it sent the whole request.
    const abandonedBody = debitBody('USAGE#abandoned');
    const abandoned = rawCall(store.endpoint, abandonedBody);
    abandoned.req.write(abandonedBody.slice(0, 20));
    await new Promise((r) => setTimeout(r, 200));
    abandoned.req.destroy();
    expect(await abandoned.status).toBe(-1);

    // A call behind them on the same item is answered while the first is still arriving (the SDK gives up after 5 s).
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName, Item: { pk: 'KEY#1', sk: 'USAGE#after' } } },
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
    // The first one's body completes: it is applied. The abandoned one never was (its retry will be).
    slow.req.end(slowBody.slice(10));
    expect(await slow.status).toBe(200);
    expect(await creditsLeft()).toBe(8);
    expect((await doc.send(new GetCommand({ TableName, Key: { pk: 'KEY#1', sk: 'USAGE#abandoned' } }))).Item).toBeUndefined();
  }, 20_000);

  it('a retry with the ClientRequestToken of an applied call answers success without applying it again, as DynamoDB does', async () => {
    await doc.send(new PutCommand({ TableName, Item: { pk: 'KEY#1', sk: 'PLAN', credits_left: 10 } }));
    const body = debitBody('USAGE#token', 'token-0001');
    const first = rawCall(store.endpoint, body);
    first.req.end(body);
    expect(await first.status).toBe(200);
    const retry = rawCall(store.endpoint, body);
    retry.req.end(body);
    expect(await retry.status).toBe(200);
    expect(await creditsLeft()).toBe(9);
  });
});
