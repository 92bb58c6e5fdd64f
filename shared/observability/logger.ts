/** The service logger (Powertools): structured JSON, never a secret or a key in a log line. */
import { Logger } from '@aws-lambda-powertools/logger';

const logger = new Logger({ serviceName: 'commodity-data' });

export { logger };
