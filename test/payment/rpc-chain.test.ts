/**
 * The money jobs check the chain of a configured RPC before trusting it: the local chain (ganache,
 * chain id 84532) is a Base Sepolia RPC; given as prod's RPC (Base, 8453) it is refused with both
 * chain ids named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from '../../infra/local/chain/chain';
import { assertRpcChain } from '../../shared/payment/evm/rpc-chain';

describe('RPC chain check', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await startLocalChain();
  }, 120_000);
  afterAll(async () => chain?.close());

  it('accepts an RPC of the stage network and refuses one of another chain', async () => {
    await expect(assertRpcChain(chain.rpcUrl, 'eip155:84532')).resolves.toBeUndefined();
    await expect(assertRpcChain(chain.rpcUrl, 'eip155:8453')).rejects.toThrow(
      'X402_RPC_URL serves chain 84532, but this stage charges on eip155:8453 (chain 8453): set rpcUrl to an RPC of chain 8453',
    );
  });

  it('asks once per process, and again after a failed answer', async () => {
    let calls = 0;
    const down: typeof fetch = async () => {
      calls++;
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'upstream down' } }), { status: 502 });
    };
    await expect(assertRpcChain('https://rpc.example/flaky', 'eip155:8453', down)).rejects.toThrow(/eth_chainId failed \(upstream down\)/);
    const up: typeof fetch = async () => {
      calls++;
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x2105' }));
    };
    await assertRpcChain('https://rpc.example/flaky', 'eip155:8453', up);
    await assertRpcChain('https://rpc.example/flaky', 'eip155:8453', up);
    expect(calls).toBe(2);
  });
});
