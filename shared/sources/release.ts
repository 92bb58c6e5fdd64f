/**
 * The operator's release of a price held in quarantine (shared/sources/guards.ts): the held
 * observation is written as it was delivered and leaves its source's list. Later runs that deliver
 * the same figure again find it stored and accept it.
 */
import { rewrite } from '../observation/vintage';
import { SOURCES } from './registry';
import type { HeldPoint, ObservationStore } from '../store/observation-store';

/**
 * Releases one held point.
 * @param series the series key, e.g. PRICE#CL
 * @param asOf its as_of (YYYY-MM-DD)
 * @returns the released point and its source, or null when no source holds it
 * @example await releaseHeld(store, 'PRICE#CL', '2020-04-20') // { source: 'eia-spot', held: { value: -37.63, … } }
 */
const releaseHeld = async (store: ObservationStore, series: string, asOf: string): Promise<{ source: string; held: HeldPoint } | null> => {
  for (const def of SOURCES) {
    const status = await store.getRunStatus(def.id);
    const held = status?.quarantined?.find((h) => h.series === series && h.as_of === asOf);
    if (!status || !held) continue;
    // Written as a run writes it: a figure it replaces is kept as a vintage (observation/vintage.ts).
    const [stored] = (await store.window(series, asOf, asOf, 1)).items;
    const r = rewrite(stored, held.observation, held.observation.retrieved_at);
    if (r.vintage) await store.putVintages([{ seriesKey: series, vintage: r.vintage }]);
    await store.upsertMany([{ seriesKey: series, observation: r.observation }]);
    await store.putRunStatus({ ...status, quarantined: status.quarantined!.filter((h) => h !== held) });
    return { source: def.id, held };
  }
  return null;
};

export { releaseHeld };
