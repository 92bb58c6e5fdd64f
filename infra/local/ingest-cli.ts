/**
 * `npm run ingest -- <source|all> [--live] [--since YYYY-MM-DD] [--concurrency N] [--aws] [--until-new]`
 * `npm run ingest -- <source> --file PATH [--file PATH …] [--aws]`
 * `npm run ingest -- repair --series <key> --from YYYY-MM-DD --to YYYY-MM-DD [--aws]`
 * `npm run ingest -- release --series <key> --as-of YYYY-MM-DD [--aws]`
 *
 * `repair` removes a bad range of one series (e.g. `PRICE#CL`, `INV#crude_ex_spr`) so that a
 * re-run of its source writes the good figures back; it prints what it removed. `release` writes a
 * price the guards hold in quarantine (listed in /health) after an operator checked it.
 *
 * Runs one source (or all) through the real ingestion path. By default into the local store: the
 * running `npm start` store when it answers on DYNAMODB_PORT, otherwise the on-disk store under
 * .data/; replay (the default) uses the bundled samples, --live fetches the publishers (API keys
 * from env). With --aws into a deployed stage: the observation table named by OBSERVATIONS_TABLE
 * (the data stack's ObservationsTableName output) in AWS_REGION, with the operator's AWS
 * credentials (and any endpoint the AWS SDK is pointed at, such as AWS_ENDPOINT_URL_DYNAMODB), from
 * the publishers' live data: a deployed stage is never filled with the bundled samples.
 *
 * `--file` ingests payload files in the publisher's wire format (the format of the bundled samples,
 * each named as its sample is, e.g. PET.WCESTUS1.W.json) instead of the samples or the live API: an
 * operator loads a download by hand, a test simulates a release.
 *
 * `--until-new` (with --live or --aws) is the release-instant run the scheduler starts on AWS (issue
 * 37), with the same code: while the source's calendar has a release due, the publisher is re-polled
 * until the new figure is out (shared/sources/until-new.ts).
 */
import cliProgress from 'cli-progress';
import { loadConfig, type Config } from '../../shared/config';
import { createServices } from '../../shared/services';
import { ADAPTERS } from '../../shared/sources/adapters';
import { releaseHeld } from '../../shared/sources/release';
import { runSource } from '../../shared/sources/runner';
import { runAtReleaseInstant } from '../../shared/sources/until-new';
import { parseCliArgs } from './cli-args';
import { ensureTables } from './embedded-store';
import { withPayloadFiles } from './payload-files';
import { connectLocalStore } from './store-connection';

const USAGE =
  'usage: npm run ingest -- <source|all> [--live] [--since YYYY-MM-DD] [--concurrency N] [--aws] [--until-new]\n       npm run ingest -- <source> --file PATH [--file PATH …] [--aws]\n       npm run ingest -- repair --series <key> --from YYYY-MM-DD --to YYYY-MM-DD [--aws]\n       npm run ingest -- release --series <key> --as-of YYYY-MM-DD [--aws]\n  --aws: the deployed stage of OBSERVATIONS_TABLE and AWS_REGION, from live data';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const { values, positionals } = parseCliArgs(`${USAGE}\nsources: ${Object.keys(ADAPTERS).join(', ')}`, {
  live: { type: 'boolean', default: false },
  aws: { type: 'boolean', default: false },
  since: { type: 'string' },
  concurrency: { type: 'string', default: '4' },
  series: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'as-of': { type: 'string' },
  file: { type: 'string', multiple: true },
  'until-new': { type: 'boolean', default: false },
});

const fail = (msg: string): never => {
  console.error(msg);
  process.exit(2);
};

const [target] = positionals;
if (!target) fail(`${USAGE}\nsources: ${Object.keys(ADAPTERS).join(', ')}`);

/**
 * Where the run writes: the deployed stage's table (--aws), or the local store (its tables created when missing).
 * Ingestion never touches the credit table; its name is only a required setting of the configuration.
 */
const openStore = async (): Promise<{ config: Config; close: () => Promise<void> }> => {
  if (values.aws) {
    if (!process.env.OBSERVATIONS_TABLE) fail('--aws needs OBSERVATIONS_TABLE (the data stack output ObservationsTableName) and AWS_REGION');
    const config = loadConfig({ CREDITS_TABLE: 'unused-by-ingestion', ...process.env, DYNAMODB_ENDPOINT: undefined });
    return { config, close: async () => {} };
  }
  const { endpoint, close } = await connectLocalStore(process.env);
  const config = loadConfig({ OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits', ...process.env, DYNAMODB_ENDPOINT: endpoint });
  await ensureTables(endpoint, { observations: config.OBSERVATIONS_TABLE, credits: config.CREDITS_TABLE });
  return { config, close };
};

if (target === 'repair') {
  const { series, from, to } = values;
  if (!series || !from || !to || !DATE.test(from) || !DATE.test(to) || from > to) fail(`repair needs --series and a --from..--to date range\n${USAGE}`);
  const { config, close } = await openStore();
  const removed = await createServices(config).store.deleteRange(series!, from!, to!);
  console.log(
    `removed ${removed} observation(s) of ${series} dated ${from}..${to}${values.aws ? ` in ${config.OBSERVATIONS_TABLE}` : ''}; re-run its source to write the good figures back`,
  );
  await close();
  process.exit(0);
}
if (target === 'release') {
  const { series, 'as-of': asOf } = values;
  if (!series || !asOf || !DATE.test(asOf)) fail(`release needs --series and --as-of\n${USAGE}`);
  const { config, close } = await openStore();
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

const files = values.file ?? [];
if (files.length > 0 && (target === 'all' || values.live)) fail(`--file loads one source's payload files; not with 'all' or --live\n${USAGE}`);
if (values['until-new'] && (files.length > 0 || !(values.live || values.aws)))
  fail(`--until-new re-polls the publishers: with --live or --aws, not --file\n${USAGE}`);
const { config, close: closeStore } = await openStore();
const { store } = createServices(config);
// --file: the files stand in for the source's samples (same wire format, read the same way).
const live = files.length === 0 && (values.live || values.aws);
const adapterOf = (id: string) => (files.length > 0 ? withPayloadFiles(ADAPTERS[id]!, files) : ADAPTERS[id]!);
if (values.aws)
  console.log(`into ${config.OBSERVATIONS_TABLE} (${config.AWS_REGION}), live from the publishers${values.since ? ` since ${values.since}` : ''}`);

const bar = new cliProgress.SingleBar({ format: '{source} [{bar}] {value}/{total} documents', hideCursor: true }, cliProgress.Presets.shades_classic);
let failed = false;
for (const id of ids) {
  let started = false;
  const runOnce = () =>
    runSource(adapterOf(id), {
      mode: live ? 'live' : 'replay',
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
  const newest = async () => (await store.getRunStatus(id))?.data_newest?.as_of ?? null;
  const result = values['until-new'] ? await runAtReleaseInstant(id, new Date(), runOnce, newest) : await runOnce();
  if (started) bar.stop();
  console.log(`${result.status.padEnd(7)} ${result.message}`);
  // A backfill of a deployed stage that skipped a source (no API key) did not fill it: not ok.
  failed ||= result.status === 'failed' || (values.aws === true && result.status !== 'ok');
}
await closeStore();
process.exit(failed ? 1 : 0);
