/**
 * The bench's bundle rows (issue 14): every Lambda entry bundled as CDK does (infra/bundle/options.ts),
 * its size, and its import in a fresh Node process as a multiple of importing the DynamoDB client alone.
 * targets.ts records these rows at its end; `tsx test/bench/bundle-rows.ts` prints them alone (about a
 * minute), for work on the bundles without the 9-minute bench.
 *
 *   tsx test/bench/bundle-rows.ts [--runs N] [--out DIR] [--also DIR]
 *
 * --also DIR adds the bundles already built in DIR (for example an older commit's) to the same rounds,
 * so that two builds are compared against one floor measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BUNDLE_LIMITS_KB, IMPORT_LIMIT_RATIO, bundleFunctions } from '../../infra/bundle/options';

type Row = { what: string; value: string; target: string; ok: boolean };

/** What the functions' environment holds on Lambda (the curve entry checks its configuration at import). */
const LAMBDA_ENV = { OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits' };

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/**
 * The child's CPU time (user + system, every thread, since it started), printed as it finishes: on a
 * busy machine wall time mostly measures the wait for a core, CPU time what the import costs.
 */
const REPORT_CPU = 'const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000));';

const spawnTimed = (args: string[]): { ms: number; cpuMs: number; status: number | null; stderr: string } => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env: { ...process.env, ...LAMBDA_ENV } });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpuMs: Number(r.stdout.toString()), status: r.status, stderr: r.stderr.toString() };
};
const importArgs = (file: string) => [
  '-e',
  `import(${JSON.stringify(file)}).then(() => { ${REPORT_CPU} }, (e) => { console.error(e.message); process.exit(1); })`,
];
const EMPTY = ['-e', REPORT_CPU];
const SDK_ONLY = ['--input-type=module', '-e', `await import('@aws-sdk/client-dynamodb'); await import('@aws-sdk/lib-dynamodb'); ${REPORT_CPU}`];

/** Bundles every functions/*.ts into `outdir` (inside node_modules by default, so that the AWS SDK, external as on Lambda, resolves). */
const buildAll = async (outdir: string): Promise<string[]> => {
  mkdirSync(outdir, { recursive: true });
  const entries = readdirSync('functions')
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.replace(/\.ts$/, ''));
  await bundleFunctions(Object.fromEntries(entries.map((n) => [n, join(process.cwd(), 'functions', `${n}.ts`)])), outdir);
  return entries.map((n) => join(outdir, `${n}.mjs`));
};

/**
 * Times `runs` rounds after one that is not counted (the build's own processes winding down); each
 * round spawns, in turn, an empty process, the DynamoDB client alone and every bundle, so that a
 * machine that gets busier or quieter during the run moves every figure alike. (Timed in blocks, the
 * floor once came out at 22 ms instead of about 50: a busy moment during the empty processes' block
 * is taken off every figure.) Process start-up and import vary by tens of ms from one spawn to the next
 * on a shared machine: each figure is a median over the rounds, less the empty process's median.
 */
const measureImports = (files: readonly string[], runs: number) => {
  const times = new Map<string, { ms: number[]; cpuMs: number[] }>();
  const failed = new Map<string, string>();
  const timed = (key: string, args: string[], counted: boolean) => {
    const r = spawnTimed(args);
    if (r.status !== 0) failed.set(key, r.stderr.trim().slice(0, 60));
    if (!counted) return;
    const t = times.get(key) ?? { ms: [], cpuMs: [] };
    t.ms.push(r.ms);
    t.cpuMs.push(r.cpuMs);
    times.set(key, t);
  };
  for (let i = 0; i <= runs; i++) {
    timed('', EMPTY, i > 0);
    timed('sdk', SDK_ONLY, i > 0);
    for (const file of files) timed(file, importArgs(file), i > 0);
  }
  /** A figure beyond the empty process's: wall ms and CPU ms. */
  const beyondEmpty = (key: string) => ({
    ms: median(times.get(key)!.ms) - median(times.get('')!.ms),
    cpuMs: median(times.get(key)!.cpuMs) - median(times.get('')!.cpuMs),
  });
  return { sdkOnly: beyondEmpty('sdk'), imported: beyondEmpty, failure: (file: string) => failed.get(file) };
};

/** The bundle rows, one per entry (and per file of `also`, named by its directory), measured in one run. */
const bundleRows = async ({ outdir, runs = 9, also = [] }: { outdir: string; runs?: number; also?: readonly string[] }): Promise<Row[]> => {
  const built = await buildAll(outdir);
  const files = [...built, ...also];
  const { sdkOnly, imported, failure } = measureImports(files, runs);
  return files.map((file) => {
    const name = basename(file, '.mjs');
    const kb = statSync(file).size / 1024;
    const { ms, cpuMs } = imported(file);
    const error = failure(file);
    const limit = BUNDLE_LIMITS_KB[name];
    const label = built.includes(file) ? name : `${name} (${file})`;
    return {
      what: `bundle ${label} (minified; import in a fresh process vs the DynamoDB client alone)`,
      // The target is the wall-time ratio; the CPU-time ratio beside it tells a busy machine's figure from a slow import.
      value: `${kb.toFixed(0)} KB; ${error === undefined ? `${ms.toFixed(0)} / ${sdkOnly.ms.toFixed(0)} ms = ${(ms / sdkOnly.ms).toFixed(2)}x (CPU ${(cpuMs / sdkOnly.cpuMs).toFixed(2)}x)` : `import failed: ${error}`}`,
      target: `${limit ? `<= ${limit} KB` : 'no size limit'}, <= ${IMPORT_LIMIT_RATIO}x`,
      ok: (!limit || kb <= limit) && error === undefined && ms / sdkOnly.ms <= IMPORT_LIMIT_RATIO,
    };
  });
};

/** Where the bench writes its bundles. */
const BENCH_BUNDLES = join(process.cwd(), 'node_modules', '.cache', 'bench-bundles');

if (process.argv[1] && basename(process.argv[1]) === 'bundle-rows.ts') {
  const flag = (name: string) => {
    const i = process.argv.indexOf(name);
    return i < 0 ? undefined : process.argv[i + 1];
  };
  const alsoDir = flag('--also');
  const also = alsoDir
    ? readdirSync(alsoDir)
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => join(alsoDir, f))
    : [];
  const rows = await bundleRows({ outdir: flag('--out') ?? BENCH_BUNDLES, runs: Number(flag('--runs') ?? 9), also });
  for (const r of rows) console.log(r.what.padEnd(72), r.value.padEnd(40), r.target.padEnd(22), r.ok ? 'yes' : 'NO');
  console.log(`${rows.filter((r) => r.ok).length} of ${rows.length} bundle rows met`);
}

export { BENCH_BUNDLES, bundleRows };
