/** The service logger: structured JSON in Powertools Logger's format (json-log.ts), never a secret or a key in a log line. */
import { createJsonLogger } from './json-log';

const logger = createJsonLogger('commodity-data');

export { logger };
