import { HttpError } from '../../errors/errors';

/** A part of an answer that could not be served, and why. */
interface MissingPart {
  input: string;
  reason: string;
}

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

export { orMissing };
export type { MissingPart };
