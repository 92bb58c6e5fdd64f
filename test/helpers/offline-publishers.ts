/**
 * Preload (`node --import`) that stands in for the publishers when a test runs an operator command
 * as written (`npm run ingest -- all --aws --since …`) without internet: each adapter's live fetch
 * answers with the source's recorded payloads (shared/sources/samples/, real published figures in
 * the live wire format), as retrieved now. Everything after the fetch (parse, guards, writes, run
 * status) is the real path. Test-only: nothing in the service imports it.
 */
import { ADAPTERS } from '../../shared/sources/adapters';

for (const adapter of Object.values(ADAPTERS)) {
  const recorded = adapter.samples.bind(adapter);
  (adapter as { live: typeof adapter.live }).live = async (ctx) => (await recorded()).map((p) => ({ ...p, retrievedAt: ctx.now.toISOString() }));
}
