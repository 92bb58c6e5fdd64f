/**
 * `npm run ingest -- <source|all> [--live] [--since YYYY-MM-DD] [--concurrency N]`
 * `npm run ingest -- repair --series <key> --from YYYY-MM-DD --to YYYY-MM-DD`
 * `npm run ingest -- release --series <key> --as-of YYYY-MM-DD`
 *
 * `repair` removes a bad range of one series (e.g. `PRICE#CL`, `INV#crude_ex_spr`) so that a
 * re-run of its source writes the good figures back; it prints what it removed. `release` writes a
 * price the guards hold in quarantine (listed in /health) after an operator checked it.
 *
 * Runs one source (or all) through the real ingestion path into the local store: the running
 * `npm start` store when it answers on DYNAMODB_PORT, otherwise the on-disk store under .data/.
 * Replay (the default) uses the bundled samples; --live fetches the publishers (API keys from env).
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../../shared/config';
import { createServices } from '../../shared/services';
import { ADAPTERS } from '../../shared/sources/adapters';
import { releaseHeld } from '../../shared/sources/release';
import { runSource } from '../../shared/sources/runner';
import { ensureTables } from './embedded-store';
import { connectLocalStore } from './store-connection';

const USAGE =
  'usage: npm run ingest -- <source|all> [--live] [--since YYYY-MM-DD] [--concurrency N]\n       npm run ingest -- repair --series <key> --from YYYY-MM-DD --to YYYY-MM-DD\n       npm run ingest -- release --series <key> --as-of YYYY-MM-DD';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    live: { type: 'boolean', default: false },
    since: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    series: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    'as-of': { type: 'string' },
  },
});

const fail = (msg: string): never => {
  console.error(msg);
  process.exit(2);
};

const [target] = positionals;
if (!target) fail(`${USAGE}\nsources: ${Object.keys(ADAPTERS).join(', ')}`);

if (target === 'repair') {
  const { series, from, to } = values;
  if (!series || !from || !to || !DATE.test(from) || !DATE.test(to) || from > to) fail(`repair needs --series and a --from..--to date range\n${USAGE}`);
  const { endpoint, close } = await connectLocalStore(process.env);
  const config = loadConfig({ OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits', ...process.env, DYNAMODB_ENDPOINT: endpoint });
  await ensureTables(endpoint, { observations: config.OBSERVATIONS_TABLE, credits: config.CREDITS_TABLE });
  const removed = await createServices(config).store.deleteRange(series!, from!, to!);
  console.log(`removed ${removed} observation(s) of ${series} dated ${from}..${to}; re-run its source to write the good figures back`);
  await close();
  process.exit(0);
}
if (target === 'release') {
  const { series, 'as-of': asOf } = values;
  if (!series || !asOf || !DATE.test(asOf)) fail(`release needs --series and --as-of\n${USAGE}`);
  const { endpoint, close } = await connectLocalStore(process.env);
  const config = loadConfig({ OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits', ...process.env, DYNAMODB_ENDPOINT: endpoint });
  await ensureTables(endpoint, { observations: config.OBSERVATIONS_TABLE, credits: config.CREDITS_TABLE });
  const released = await releaseHeld(createServices(config).store, series!, asOf!);
  await close();
  if (!released) fail(`no source holds ${series} ${asOf} in quarantine (GET /health lists what is held)`);
  console.log(`released ${series} ${asOf} = ${released!.held.value} (${released!.source}); it was held: ${released!.held.reason}`);
  process.exit(0);
}
if (values.since && !/^\d{4}-\d{2}-\d{2}$/.test(values.since)) fail(`--since must be YYYY-MM-DD\n${USAGE}`);
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16) fail('--concurrency must be 1..16');
const ids = target === 'all' ? Object.keys(ADAPTERS) : [target!];
for (const id of ids) if (!ADAPTERS[id]) fail(`unknown source ${id}; sources: ${Object.keys(ADAPTERS).join(', ')}`);

const { endpoint, close: closeStore } = await connectLocalStore(process.env);
const config = loadConfig({ OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits', ...process.env, DYNAMODB_ENDPOINT: endpoint });
await ensureTables(endpoint, { observations: config.OBSERVATIONS_TABLE, credits: config.CREDITS_TABLE });
const { store } = createServices(config);

const bar = new cliProgress.SingleBar({ format: '{source} [{bar}] {value}/{total} documents', hideCursor: true }, cliProgress.Presets.shades_classic);
let failed = false;
for (const id of ids) {
  let started = false;
  const result = await runSource(ADAPTERS[id]!, {
    mode: values.live ? 'live' : 'replay',
    store,
    config,
    since: values.since,
    concurrency,
    onProgress: (done, total) => {
      if (!started) bar.start(total, 0, { source: id });
      started = true;
      bar.update(done, { source: id });
    },
  });
  if (started) bar.stop();
  console.log(`${result.status.padEnd(7)} ${result.message}`);
  failed ||= result.status === 'failed';
}
await closeStore();
process.exit(failed ? 1 : 0);
