/**
 * Compiles the local chain's contracts (contracts/*.sol) with solc-js at start-up, so the
 * repository holds only Solidity source and no build artefacts. One compile takes about a
 * second; the result is memoised per process.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

interface CompiledContract {
  abi: Abi;
  /** Runtime (deployed) bytecode: what evm_setAccountCode places at an address. */
  runtime: Hex;
}

interface CompiledContracts {
  LocalUSDC: CompiledContract;
  Multicall3: CompiledContract;
  /** The x402 batch-settlement escrow look-alike. */
  LocalBatchSettlement: CompiledContract;
  /** Its ERC-3009 deposit collector. */
  LocalErc3009DepositCollector: CompiledContract;
}

const CONTRACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'contracts');
const SOURCES = ['LocalUSDC.sol', 'Multicall3.sol', 'LocalBatchSettlement.sol', 'LocalErc3009DepositCollector.sol'] as const;

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { abi: Abi; evm: { deployedBytecode: { object: string } } }>>;
}

let memo: CompiledContracts | undefined;

/**
 * Compiles the local chain's contracts (once per process).
 * @throws Error with solc's messages when the source does not compile
 */
const compileContracts = (): CompiledContracts => {
  if (memo) return memo;
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(SOURCES.map((f) => [f, { content: readFileSync(join(CONTRACTS_DIR, f), 'utf8') }])),
    settings: {
      // ganache 7 implements up to Shanghai; 'paris' keeps PUSH0 and MCOPY out of the bytecode.
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const pick = (file: string, name: string): CompiledContract => {
    const c = out.contracts?.[file]?.[name];
    if (!c?.evm.deployedBytecode.object) throw new Error(`solc produced no bytecode for ${name}`);
    return { abi: c.abi, runtime: `0x${c.evm.deployedBytecode.object}` };
  };
  memo = {
    LocalUSDC: pick('LocalUSDC.sol', 'LocalUSDC'),
    Multicall3: pick('Multicall3.sol', 'Multicall3'),
    LocalBatchSettlement: pick('LocalBatchSettlement.sol', 'LocalBatchSettlement'),
    LocalErc3009DepositCollector: pick('LocalErc3009DepositCollector.sol', 'LocalErc3009DepositCollector'),
  };
  return memo;
};

export { compileContracts };
export type { CompiledContract, CompiledContracts };
