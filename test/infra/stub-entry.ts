// Stand-in Lambda entry for the CDK assertion tests: bundling is skipped there, so the file only has to exist.
export const handler = async (): Promise<{ statusCode: number }> => ({ statusCode: 501 });
