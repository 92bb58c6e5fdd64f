/**
 * How a secret's value is read: Secrets Manager in the configured region, or an injected reader in
 * tests. Its own module, so that a function that reads one secret carries no other secret's schema.
 */

/** Reads a secret's string value (injectable so tests need no AWS). */
type SecretReader = (secretId: string, region: string) => Promise<string | undefined>;

const readFromSecretsManager: SecretReader = async (secretId, region) => {
  // Loaded when a secret is first read: the paid functions carry this reader for the facilitator's
  // credentials, and most deployments have none to read.
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({ region });
  try {
    return (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } finally {
    client.destroy();
  }
};

export { readFromSecretsManager };
export type { SecretReader };
