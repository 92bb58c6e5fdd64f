/**
 * Many paid calls in one request: an MCP POST carrying 30 tool calls (a JSON-RPC batch) with a Pro
 * key. Each call is debited and gets its own usage entry, though all share the POST's request id
 * (the usage entry's key is the call's own id; the request id is an attribute).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStack } from '../helpers/stack';

describe('an MCP POST with 30 paid tool calls on a Pro key', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', PRO_RATE_LIMIT_PER_SECOND: '1000' });
  });
  afterAll(() => stack?.close());

  it('debits each call and writes one usage entry per call, all under the one request id', async () => {
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    const key = generateKey();
    await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
    const batch = Array.from({ length: 30 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'get_price', arguments: { code: 'CL' } },
    }));
    const res = await fetch(`${stack.url}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify(batch),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const answers = JSON.parse(text) as Array<{ id: number; result?: { isError?: boolean; structuredContent?: { instrument?: string } } }>;
    expect(answers).toHaveLength(30);
    for (const a of answers) expect(a.result?.structuredContent?.instrument, JSON.stringify(a)).toBe('CL');
    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(3000 - 30);
    const entries = await ledger.usage(hashKey(key), new Date().toISOString().slice(0, 7));
    expect(entries).toHaveLength(30);
    expect(new Set(entries.map((e) => e.callId)).size).toBe(30);
    expect(new Set(entries.map((e) => e.requestId)).size).toBe(1);
  });
});
