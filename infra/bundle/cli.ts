/**
 * `node --import tsx infra/bundle/cli.ts <entry.ts> <outdir>`: bundles one Lambda entry to
 * <outdir>/index.mjs. CDK's bundling hook is synchronous and esbuild plugins need the asynchronous
 * API, so ServiceFunction runs this in a child process.
 */
import { bundleFunctions } from './options';

const [entry, outdir] = process.argv.slice(2);
if (!entry || !outdir) {
  console.error('usage: cli.ts <entry.ts> <outdir>');
  process.exit(2);
}
await bundleFunctions({ index: entry }, outdir);
