/**
 * The reconciler's AuthorizationUsed search against a provider that refuses large eth_getLogs
 * ranges: the local chain (ganache, the EIP-3009 token at Base Sepolia's USDC address) behind a
 * loopback JSON-RPC proxy that answers a range over its cap with the error hosted providers give
 * (wording after QuickNode's "eth_getLogs is limited to a 10000 range", with a lower cap), and
 * passes everything else on. The payment is a real transferWithAuthorization, 3,000 blocks deep.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWalletClient, http, parseSignature, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localBaseSepolia, startLocalChain, type LocalChain } from '../../infra/local/chain/chain';
import { findNewestLog, isRangeRefusal } from '../../shared/payment/evm/log-pages';
import { viemChainReader } from '../../shared/payment/reconcile';
import { nowS, randomNonce, signAuthorization } from './helpers';

interface RangeCappedProvider {
  url: string;
  /** [from, to] of every eth_getLogs passed on to the node. */
  served: Array<[bigint, bigint]>;
  refused: number;
  close(): Promise<void>;
}

const startRangeCappedProvider = async (target: string, maxBlocks: bigint, message: (cap: bigint) => string): Promise<RangeCappedProvider> => {
  const p: RangeCappedProvider = { url: '', served: [], refused: 0, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const call = JSON.parse(body) as { id: unknown; method: string; params: Array<{ fromBlock?: string; toBlock?: string }> };
    if (call.method === 'eth_getLogs') {
      const from = BigInt(call.params[0]!.fromBlock!);
      const to = BigInt(call.params[0]!.toBlock!);
      if (to - from + 1n > maxBlocks) {
        p.refused++;
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32602, message: message(maxBlocks) } }));
      }
      p.served.push([from, to]);
    }
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  p.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  p.close = () => new Promise<void>((r) => server.close(() => r()));
  return p;
};

describe('reconciler eth_getLogs in pages a provider accepts', () => {
  let chain: LocalChain;
  let paidTx: Hex;
  const nonce = randomNonce();
  const payer = () => chain.accounts[3]!;

  beforeAll(async () => {
    chain = await startLocalChain();
    const signed = await signAuthorization(payer(), { payTo: chain.accounts[2]!.address, validBefore: nowS() + 3600n, nonce });
    const a = signed.authorization;
    const { v, r, s } = parseSignature(signed.signature);
    const wallet = createWalletClient({ account: chain.accounts[0]!, chain: localBaseSepolia(chain.rpcUrl), transport: http(chain.rpcUrl) });
    paidTx = await wallet.writeContract({
      address: chain.asset,
      abi: chain.contracts.LocalUSDC.abi,
      functionName: 'transferWithAuthorization',
      args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, Number(v), r, s],
    } as never);
    expect((await chain.publicClient.waitForTransactionReceipt({ hash: paidTx })).status).toBe('success');
    // 3,000 blocks on top of it (ganache mines a batch in one call).
    await chain.publicClient.request({ method: 'evm_mine' as never, params: [{ blocks: 3000 }] as never });
  }, 120_000);
  afterAll(async () => chain?.close());

  it('finds the transaction that used an authorization behind a provider capped at 500 blocks per query', async () => {
    const provider = await startRangeCappedProvider(chain.rpcUrl, 500n, (cap) => `eth_getLogs is limited to a ${cap} range`);
    try {
      const reader = viemChainReader(provider.url);
      expect(await reader.findAuthorizationTransaction(chain.asset, payer().address, nonce)).toBe(paidTx);
      expect(provider.refused).toBeGreaterThan(0);
      for (const [from, to] of provider.served) expect(to - from + 1n).toBeLessThanOrEqual(500n);
      // An unused nonce: every block of the lookback asked, none twice, each page accepted.
      provider.served.length = 0;
      expect(await reader.findAuthorizationTransaction(chain.asset, payer().address, randomNonce())).toBeNull();
      const latest = await chain.publicClient.getBlockNumber();
      const pages = [...provider.served].sort((x, y) => (x[0] < y[0] ? -1 : 1));
      expect(pages[0]![0]).toBe(0n); // the chain is younger than the 20,000-block lookback
      expect(pages.at(-1)![1]).toBe(latest);
      for (let i = 1; i < pages.length; i++) expect(pages[i]![0]).toBe(pages[i - 1]![1] + 1n);
    } finally {
      await provider.close();
    }
  }, 120_000);

  it('throws what is not a refusal of the range (an outage is no proof the payment is missing)', async () => {
    let calls = 0;
    const outage = Object.assign(new Error('HTTP request failed'), { details: 'connect ECONNREFUSED' });
    await expect(
      findNewestLog(
        async () => {
          calls++;
          throw outage;
        },
        { fromBlock: 0n, toBlock: 10_000n },
      ),
    ).rejects.toBe(outage);
    expect(calls).toBe(1);
    expect(isRangeRefusal(outage)).toBe(false);
  });

  it('recognises refusals in the wordings providers use, wrapped as viem wraps them', () => {
    for (const m of [
      'eth_getLogs is limited to a 10,000 range',
      'block range too large',
      'exceed maximum block range: 5000',
      'query returned more than 10000 results',
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range',
    ]) {
      expect(isRangeRefusal({ message: 'RPC Request failed.', cause: { details: m } }), m).toBe(true);
    }
    expect(isRangeRefusal({ message: 'rate limit exceeded' })).toBe(false);
  });
});
