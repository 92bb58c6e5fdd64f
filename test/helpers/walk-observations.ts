/** Finds every observation nested anywhere in a response body (objects shaped like one). */
const OBSERVATION_MARKERS = ['instrument', 'value', 'as_of', 'freshness_class', 'license_tag'];

const walkObservations = (body: unknown, out: unknown[] = []): unknown[] => {
  if (Array.isArray(body)) body.forEach((b) => walkObservations(b, out));
  else if (body !== null && typeof body === 'object') {
    if (OBSERVATION_MARKERS.every((k) => k in body)) out.push(body);
    else Object.values(body).forEach((v) => walkObservations(v, out));
  }
  return out;
};

export { walkObservations };
