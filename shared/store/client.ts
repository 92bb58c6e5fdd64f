/**
 * DynamoDB document client, created once per process from the configuration. Locally it
 * points at the embedded store (DYNAMODB_ENDPOINT) with dummy credentials.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config';

/** Build a document client for a configuration. */
const createDocumentClient = (config: Pick<Config, 'DYNAMODB_ENDPOINT' | 'AWS_REGION'>): DynamoDBDocumentClient => {
  const local = config.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({
    region: config.AWS_REGION,
    ...(local ? { endpoint: local, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 3 } : {}),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
};

export { createDocumentClient };
