/**
 * Shared by the snapshot and decision families: the sector path parameter and partial answers
 * (a loader's "no data" becomes a listed missing part instead of failing the whole answer).
 */
import { SECTORS, SectorSchema, type Sector } from '../../catalog/instruments';
import { HttpError, NotFoundError } from '../../errors/errors';

/** A part of an answer that could not be served, and why. */
interface MissingPart {
  input: string;
  reason: string;
}

/** The sector of a path, or a 404 UNKNOWN_SECTOR listing the valid sectors. */
const requireSector = (sector: string): Sector => {
  const parsed = SectorSchema.safeParse(sector);
  if (!parsed.success) {
    throw new NotFoundError('UNKNOWN_SECTOR', `unknown sector ${JSON.stringify(sector)}`, {
      valid: [...SECTORS],
      hint: 'the all-sector bundle is a separate route: /v1/snapshot/all or /v1/decision/all',
    });
  }
  return parsed.data;
};

/**
 * Runs a loader; its "no data" answer (a 404 or 503 HttpError) becomes a missing part. Any
 * other error is a real failure and propagates.
 */
const orMissing = async <T>(input: string, missing: MissingPart[], load: () => Promise<T>): Promise<T | null> => {
  try {
    return await load();
  } catch (err) {
    if (err instanceof HttpError && (err.statusCode === 404 || err.statusCode === 503)) {
      missing.push({ input, reason: err.message });
      return null;
    }
    throw err;
  }
};

export { requireSector, orMissing };
export type { MissingPart };
