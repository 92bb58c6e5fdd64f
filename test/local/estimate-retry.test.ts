/**
 * The local facilitator's transport asks an unanswered eth_estimateGas again (ganache now and then
 * never answers one that meets a block being mined; infra/local/chain/estimate-retry.ts), and asks
 * nothing else twice: a refused estimate (a transfer that would revert) surfaces at once, and a
 * broadcast is sent once. The JSON-RPC server here stands in for ganache: it leaves the first
 * estimate unanswered, as ganache does at random (the race itself is not reproducible in a test).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpWithEstimateRetry } from '../../infra/local/chain/estimate-retry';

const calls: string[] = [];
const stalled: ServerResponse[] = [];
let server: Server;
let url = '';
/** What the server does with the next eth_estimateGas: leave it unanswered, answer, or refuse. */
let estimates: Array<'stall' | 'answer' | 'revert'> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      calls.push(method);
      const reply = (r: object) => res.end(JSON.stringify({ jsonrpc: '2.0', id, ...r }));
      if (method === 'eth_chainId') return reply({ result: '0x14a34' });
      if (method === 'eth_sendRawTransaction') return reply({ error: { code: -32000, message: 'nonce too low' } });
      const next = estimates.shift();
      if (next === 'stall') return void stalled.push(res);
      if (next === 'revert') return reply({ error: { code: 3, message: 'execution reverted: transfer amount exceeds balance', data: '0x' } });
      reply({ result: '0x1d4c0' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of stalled) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = () => createPublicClient({ transport: httpWithEstimateRetry(url) });
const estimate = () =>
  client().estimateGas({ account: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', to: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', data: '0x' });

describe('httpWithEstimateRetry', () => {
  it('an estimate left unanswered is asked again, and the second answer is the result', async () => {
    calls.length = 0;
    estimates = ['stall', 'answer'];
    expect(await estimate()).toBe(120_000n);
    expect(calls.filter((m) => m === 'eth_estimateGas')).toHaveLength(2);
  });

  it('a refused estimate (the transfer would revert) is not asked again', async () => {
    calls.length = 0;
    estimates = ['revert', 'answer'];
    await expect(estimate()).rejects.toThrow(/exceeds balance/);
    expect(calls.filter((m) => m === 'eth_estimateGas')).toHaveLength(1);
  });

  it('a broadcast goes through once, whatever it meets', async () => {
    calls.length = 0;
    await expect(client().request({ method: 'eth_sendRawTransaction', params: ['0x02'] })).rejects.toThrow(/nonce too low/);
    expect(calls.filter((m) => m === 'eth_sendRawTransaction')).toHaveLength(1);
  });
});
