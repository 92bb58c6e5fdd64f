/** Finds every observation nested anywhere in a response body (objects shaped like one). */
const OBSERVATION_MARKERS = ['instrument', 'value', 'as_of', 'freshness_class', 'license_tag'];

const walkObservations = (body: unknown, out: unknown[] = []): unknown[] => {
  if (Array.isArray(body)) for (const b of body) walkObservations(b, out);
  else if (body !== null && typeof body === 'object') {
    if (OBSERVATION_MARKERS.every((k) => k in body)) out.push(body);
    else for (const v of Object.values(body)) walkObservations(v, out);
  }
  return out;
};

export { walkObservations };
