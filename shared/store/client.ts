/**
 * DynamoDB document client, created once per process from the configuration. Locally it
 * points at the embedded store (DYNAMODB_ENDPOINT) with dummy credentials.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config';

/**
 * Build a document client for a configuration. Every store call is bounded: a store that stops
 * answering fails the call in seconds (the request then answers 503 and nothing is charged)
 * instead of holding a paid request past API Gateway's 29 s. Three attempts of STORE_TIMEOUT_MS
 * (default 3 s) fit inside the request budget with room for the release that follows.
 */
const createDocumentClient = (config: Pick<Config, 'DYNAMODB_ENDPOINT' | 'AWS_REGION'> & Partial<Pick<Config, 'STORE_TIMEOUT_MS'>>): DynamoDBDocumentClient => {
  const local = config.DYNAMODB_ENDPOINT;
  const timeoutMs = config.STORE_TIMEOUT_MS ?? 3_000;
  const client = new DynamoDBClient({
    region: config.AWS_REGION,
    maxAttempts: 3,
    // Connecting gets a third of the request timeout (1 s by default). The SDK counts the wait for a free
    // socket as connecting, and its pool holds 50: the embedded store (one client shared by every
    // request of the local runtime, on loopback) gets as many sockets as calls, so that a busy store
    // is not mistaken for one that cannot be reached. A Lambda makes few calls at a time: the default.
    requestHandler: {
      connectionTimeout: Math.round(timeoutMs / 3),
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
      ...(local ? { httpAgent: { maxSockets: Number.POSITIVE_INFINITY } } : {}),
    },
    ...(local ? { endpoint: local, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
};

export { createDocumentClient };
