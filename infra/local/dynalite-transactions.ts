/**
 * TransactWriteItems for the embedded store. Dynalite does not implement it; DynamoDB does. The
 * emulation runs one transaction at a time per item (transactions on other items run meanwhile, as
 * in DynamoDB, where only transactions on a shared item conflict): it applies the writes through dynalite itself, in
 * process (so conditions are dynalite's; dynalite-direct.ts), each returning the image it replaced, and when any is refused
 * restores those images and answers TransactionCanceledException with CancellationReasons, as
 * DynamoDB does. Plain (non-transactional) writes may interleave, so this
 * is all-or-nothing but not isolated: enough for a local runtime and tests, not a database. As in
 * DynamoDB, a ClientRequestToken (the SDK sets one and keeps it across retries) makes a retry of an
 * applied call a success that writes nothing.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { DirectCall } from './dynalite-direct';

type Key = Record<string, AttributeValue>;
interface TransactItem {
  Put?: { TableName: string; Item: Key; ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Key };
  Update?: {
    TableName: string;
    Key: Key;
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Key;
  };
  Delete?: { TableName: string; Key: Key; ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Key };
}

const TARGET = 'DynamoDB_20120810.TransactWriteItems';

/** The request body; rejects when the client goes away before sending all of it. */
const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client went away before sending the whole request'));
    });
  });

/** DynamoDB honours a ClientRequestToken for 10 minutes: a retry of an applied call succeeds without applying it again. */
const TOKEN_TTL_MS = 10 * 60_000;

const reply = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `local-${Date.now()}` });
  res.end(text);
};

/** The key attributes of an item, given the table's key schema names. */
const keyOf = (item: Key, names: readonly string[]): Key => Object.fromEntries(names.map((n) => [n, item[n]!]));

/** Adds TransactWriteItems (Put, Update, Delete) to a running dynalite server whose operations `call` runs. */
const addTransactWriteItems = (server: Server, call: DirectCall, keyNames: readonly string[] = ['pk', 'sk']): void => {
  const inner = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  /** The last transaction queued on each item: a transaction starts once those of all its items ended. */
  const tails = new Map<string, Promise<unknown>>();
  const itemIds = (items: TransactItem[]) =>
    items.map((i) => {
      const op = i.Put ?? i.Update ?? i.Delete;
      return `${op?.TableName}|${JSON.stringify(keyOf(i.Put?.Item ?? i.Update?.Key ?? i.Delete?.Key ?? {}, keyNames))}`;
    });

  const run = async (items: TransactItem[]): Promise<{ ok: true } | { ok: false; reasons: Array<{ Code: string; Message?: string }> }> => {
    const targets = items.map((i) => {
      if (i.Put) return { table: i.Put.TableName, key: keyOf(i.Put.Item, keyNames) };
      if (i.Update) return { table: i.Update.TableName, key: i.Update.Key };
      if (i.Delete) return { table: i.Delete.TableName, key: i.Delete.Key };
      throw new Error('only Put, Update and Delete are emulated');
    });
    // DynamoDB refuses two operations on one item in a transaction, so the writes are independent:
    // they run together, each returning the image it replaced (ALL_OLD) for the undo.
    const results = await Promise.allSettled(
      items.map((it) => {
        if (it.Put) return call('PutItem', { ...it.Put, ReturnValues: 'ALL_OLD' });
        if (it.Update) return call('UpdateItem', { ...it.Update, ReturnValues: 'ALL_OLD' });
        return call('DeleteItem', { ...it.Delete!, ReturnValues: 'ALL_OLD' });
      }),
    );
    if (results.some((r) => r.status === 'rejected')) {
      // Undo what was applied.
      await Promise.all(
        results.map((r, j) => {
          if (r.status === 'rejected') return null;
          const t = targets[j]!;
          const old = r.value.Attributes;
          return old ? call('PutItem', { TableName: t.table, Item: old }) : call('DeleteItem', { TableName: t.table, Key: t.key });
        }),
      );
      const codeOf = (err: unknown) => ((err as { name?: string }).name === 'ConditionalCheckFailedException' ? 'ConditionalCheckFailed' : 'ValidationError');
      return {
        ok: false,
        reasons: results.map((r) => (r.status === 'rejected' ? { Code: codeOf(r.reason), Message: (r.reason as Error).message } : { Code: 'None' })),
      };
    }
    return { ok: true };
  };

  /** Applied tokens: when each expires and what it applied. */
  const tokens = new Map<string, { until: number; items: string }>();
  const remember = (token: string, items: string) => {
    const now = Date.now();
    // Insertion order is expiry order (a token is moved to the end when set again): stop at the first
    // live one, or every transaction walks every token of the last 10 minutes (quadratic under load).
    for (const [t, v] of tokens) {
      if (v.until >= now) break;
      tokens.delete(t);
    }
    tokens.delete(token);
    tokens.set(token, { until: now + TOKEN_TTL_MS, items });
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers['x-amz-target'] !== TARGET) {
      for (const l of inner) l.call(server, req, res);
      return;
    }
    // Read now, not when the call's turn comes: a client that gave up (the SDK destroys a request at
    // its timeout, then retries) is then skipped instead of holding up every call behind it forever.
    const received = readBody(req).catch(() => null);
    let gone = false;
    res.on('close', () => {
      if (!res.writableFinished) gone = true;
    });
    const apply = async (body: { TransactItems: TransactItem[]; ClientRequestToken?: string }) => {
      // Nobody will read the answer: apply nothing, the retry (same token) will.
      if (gone) return;
      const items = JSON.stringify(body.TransactItems);
      const seen = body.ClientRequestToken ? tokens.get(body.ClientRequestToken) : undefined;
      if (seen && seen.until >= Date.now()) {
        if (seen.items === items) return reply(res, 200, {});
        return reply(res, 400, {
          __type: 'com.amazonaws.dynamodb.v20120810#IdempotentParameterMismatchException',
          message: 'the ClientRequestToken was used with other parameters',
        });
      }
      const result = await run(body.TransactItems);
      if (result.ok) {
        if (body.ClientRequestToken) remember(body.ClientRequestToken, items);
        return reply(res, 200, {});
      }
      reply(res, 400, {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${result.reasons.map((r) => r.Code).join(', ')}]`,
        CancellationReasons: result.reasons,
      });
    };
    const job = received.then(async (text) => {
      if (text === null) return;
      const body = JSON.parse(text) as { TransactItems: TransactItem[]; ClientRequestToken?: string };
      // Queued behind every earlier transaction on one of its items (taken in one step: no cycles).
      const ids = itemIds(body.TransactItems);
      const before = Promise.all(ids.map((id) => tails.get(id)));
      const turn = before.then(() => apply(body));
      const done = turn.catch(() => undefined);
      for (const id of ids) tails.set(id, done);
      void done.then(() => {
        for (const id of ids) if (tails.get(id) === done) tails.delete(id);
      });
      return turn;
    });
    void job.catch((err: unknown) => reply(res, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: String(err) }));
  });
};

export { addTransactWriteItems };
