/** Watches one Pro key may hold (issue 37; OpenAPI and the route table state it). Apart, so the route table reads it without the watch rules. */
const MAX_WATCHES_PER_KEY = 25;

export { MAX_WATCHES_PER_KEY };
