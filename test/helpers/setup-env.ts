// Quiet, deterministic environment for every test file (Powertools logger off unless asked).
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.STAGE ??= 'dev';
process.env.AWS_REGION ??= 'us-east-1';
// The SDK warns once per process that Node 20 support ends in 2027; Lambda runs Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
