/**
 * A Base Sepolia look-alike on one machine: ganache in-process with chain id 84532, the
 * development mnemonic's accounts funded with ETH, our EIP-3009 token's runtime code placed at
 * the real Base Sepolia USDC address, Multicall3 at its canonical address, and our x402
 * batch-settlement escrow and its ERC-3009 deposit collector at the addresses @x402/evm expects.
 * Unmodified official x402 clients and facilitator code therefore treat the token as Base Sepolia
 * USDC (same address, same EIP-712 domain "USDC"/"2", 6 decimals) and the escrow as x402's.
 *
 * Blocks are mined at once by default; `blockTime` (X402_LOCAL_BLOCK_TIME) mines one every N
 * seconds instead, so Base's 2 s blocks can be reproduced.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createPublicClient, createWalletClient, defineChain, getAddress, http, type Address, type Hex, type PublicClient } from 'viem';
import { mnemonicToAccount, type HDAccount } from 'viem/accounts';
import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from '@x402/evm';
import { USDC_BY_NETWORK } from '../../../shared/payment/assets';
import { compileContracts, type CompiledContracts } from './compile';

/** Hardhat/anvil/foundry's public development mnemonic: its keys are known to everyone. */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
const CHAIN_ID = 84532;
const NETWORK = 'eip155:84532' as const;
const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
const USDC_ADDRESS: Address = USDC_BY_NETWORK[NETWORK].address;
/** Development accounts created, funded and minted to. */
const ACCOUNT_COUNT = 10;
/** USDC minted to each development account: 1,000 USDC in atomic units. */
const MINT_PER_ACCOUNT = 1_000_000_000n;
/** How often clients of the local chain look for a receipt (ms). */
const RECEIPT_POLL_MS = 100;

/**
 * Loads ganache. Its last release (7.9) ships µWS server binaries for Node 14-20 only; on a newer
 * Node its µWS loader printed a "Cannot find module …/uws_linux_x64_137.node" stack and then used its
 * Node.js implementation. With no binary for this Node, that implementation is put in the module
 * cache under µWS's entry point first (node documents adding require.cache entries), so ganache gets
 * it without the detour.
 */
const loadGanache = async () => {
  const fromGanache = createRequire(createRequire(import.meta.url).resolve('ganache'));
  const entry = fromGanache.resolve('@trufflesuite/uws-js-unofficial');
  const pkg = dirname(dirname(entry));
  if (!existsSync(join(pkg, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`)) && !fromGanache.cache[entry]) {
    const fallback = join(pkg, 'dist', 'index.js');
    fromGanache(fallback);
    fromGanache.cache[entry] = fromGanache.cache[fallback];
  }
  return (await import('ganache')).default;
};

/** node:http's exports object, the one ganache requires (an ESM namespace import is read-only). */
const nodeHttp = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/**
 * Runs ganache's listen with the listener limit of the HTTP server it creates lifted. Its Node.js
 * server (the µWS fallback, src/fallback/http-context.ts) adds a listener to the server's own
 * 'close' event for every connection, released only when the chain stops; the 11th connection, at
 * the first local-chain payments, printed a MaxListenersExceededWarning. Those listeners are one
 * small closure per connection of a local run, held by design until the chain closes: the limit
 * is lifted on that server alone (created during this call), not for the process.
 */
const listenUncapped = async (listen: () => Promise<void>): Promise<void> => {
  const created: import('node:http').Server[] = [];
  const original = nodeHttp.createServer;
  nodeHttp.createServer = ((...args: unknown[]) => {
    const server = (original as (...a: unknown[]) => import('node:http').Server)(...args);
    created.push(server);
    return server;
  }) as typeof original;
  try {
    await listen();
  } finally {
    nodeHttp.createServer = original;
  }
  for (const server of created) server.setMaxListeners(0);
};

/** viem chain of the local chain: Base Sepolia's id, served from loopback. */
const localBaseSepolia = (rpcUrl: string) =>
  defineChain({
    id: CHAIN_ID,
    name: 'Base Sepolia (local ganache)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });

interface LocalChain {
  rpcUrl: string;
  chainId: number;
  network: typeof NETWORK;
  /** The token's address (Base Sepolia USDC). */
  asset: Address;
  /** Development accounts of DEV_MNEMONIC (index 0 pays the facilitator's gas). */
  accounts: HDAccount[];
  contracts: CompiledContracts;
  /** Seconds between blocks; 0 = a block per transaction, at once. */
  blockTime: number;
  publicClient: PublicClient;
  /** Token balance in atomic units. */
  balanceOf(address: Address): Promise<bigint>;
  /** Mints test USDC to an address (the token's open mint; local chain only). */
  mint(to: Address, amount: bigint): Promise<void>;
  /** Moves test USDC from a development account (e.g. to empty a payer in a test). */
  transfer(from: HDAccount, to: Address, amount: bigint): Promise<void>;
  /** Moves the chain's clock forward and mines a block (a withdrawal delay passing, in a test). */
  increaseTime(seconds: number): Promise<void>;
  /** Mines a block now (with `blockTime`, instead of waiting for the next one). */
  mine(): Promise<void>;
  close(): Promise<void>;
}

interface LocalChainOptions {
  /** RPC port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Seconds between blocks (X402_LOCAL_BLOCK_TIME); 0 (default) mines each transaction at once. */
  blockTime?: number;
}

/**
 * Starts the chain and installs the contracts.
 * @example const chain = await startLocalChain(); await chain.balanceOf(chain.accounts[2].address)
 */
const startLocalChain = async (opts: LocalChainOptions = {}): Promise<LocalChain> => {
  const contracts = compileContracts();
  const blockTime = opts.blockTime ?? 0;
  if (!Number.isFinite(blockTime) || blockTime < 0) throw new Error(`blockTime must be a number of seconds >= 0, got ${blockTime}`);
  const ganache = await loadGanache();
  const server = ganache.server({
    chain: { chainId: CHAIN_ID, networkId: CHAIN_ID },
    wallet: { mnemonic: DEV_MNEMONIC, totalAccounts: ACCOUNT_COUNT, defaultBalance: 10_000 },
    // Eager instamine: a receipt exists as soon as eth_sendRawTransaction returns. With a block
    // time, transactions wait in the pool for the next block, as on Base.
    miner: blockTime > 0 ? { blockTime } : { instamine: 'eager' },
    logging: { quiet: true },
  });
  await listenUncapped(() => new Promise<void>((resolve, reject) => server.listen(opts.port ?? 0, '127.0.0.1', (err) => (err ? reject(err) : resolve()))));
  const address = server.address() as { port: number };
  const rpcUrl = `http://127.0.0.1:${address.port}`;
  const chain = localBaseSepolia(rpcUrl);
  const transport = http(rpcUrl, { batch: false, retryCount: 0 });
  // viem polls for receipts every 4 s on a chain it does not know; a local chain answers in microseconds.
  const publicClient = createPublicClient({ chain, transport, pollingInterval: RECEIPT_POLL_MS }) as PublicClient;
  const accounts = Array.from({ length: ACCOUNT_COUNT }, (_, i) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: i }));

  const rpc = (method: string, params: unknown[]) => server.provider.request({ method, params } as never);
  await rpc('evm_setAccountCode', [USDC_ADDRESS, contracts.LocalUSDC.runtime]);
  await rpc('evm_setAccountCode', [MULTICALL3_ADDRESS, contracts.Multicall3.runtime]);
  await rpc('evm_setAccountCode', [BATCH_SETTLEMENT_ADDRESS, contracts.LocalBatchSettlement.runtime]);
  await rpc('evm_setAccountCode', [ERC3009_DEPOSIT_COLLECTOR_ADDRESS, contracts.LocalErc3009DepositCollector.runtime]);
  const mine = async () => {
    await rpc('evm_mine', []);
  };

  const usdc = { address: USDC_ADDRESS, abi: contracts.LocalUSDC.abi } as const;
  const send = async (from: HDAccount, functionName: 'mint' | 'transfer', args: readonly unknown[]) => {
    const wallet = createWalletClient({ account: from, chain, transport });
    const hash: Hex = await wallet.writeContract({ ...usdc, functionName, args } as never);
    // Set-up and test transfers need not wait for the next block.
    if (blockTime > 0) await mine();
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted (${hash})`);
  };
  const mint = (to: Address, amount: bigint) => send(accounts[0]!, 'mint', [getAddress(to), amount]);
  for (const a of accounts) await mint(a.address, MINT_PER_ACCOUNT);

  return {
    rpcUrl,
    chainId: CHAIN_ID,
    network: NETWORK,
    asset: USDC_ADDRESS,
    accounts,
    contracts,
    blockTime,
    publicClient,
    balanceOf: async (who) => (await publicClient.readContract({ ...usdc, functionName: 'balanceOf', args: [getAddress(who)] })) as bigint,
    mint,
    transfer: (from, to, amount) => send(from, 'transfer', [getAddress(to), amount]),
    increaseTime: async (seconds) => {
      await rpc('evm_increaseTime', [seconds]);
      await mine();
    },
    mine,
    close: () => server.close(),
  };
};

export { startLocalChain, localBaseSepolia, DEV_MNEMONIC, RECEIPT_POLL_MS };
export type { LocalChain, LocalChainOptions };
