/**
 * OpenAPI 3.1 document generated from the route table (paths, parameters from the zod schemas,
 * prices as x-price-usd). Nothing here re-types a path or a price.
 */
import { z } from 'zod';
import { ROUTES, type RouteDef } from '../routes';

const API_VERSION = '0.1.0';

const jsonSchemaOf = (schema: z.ZodType): Record<string, unknown> => {
  try {
    return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    return {};
  }
};

const parametersOf = (r: RouteDef) => {
  const params = jsonSchemaOf(r.params) as { properties?: Record<string, unknown> };
  const query = jsonSchemaOf(r.query) as { properties?: Record<string, unknown>; required?: string[] };
  return [
    ...Object.entries(params.properties ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema })),
    ...Object.entries(query.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: (query.required ?? []).includes(name),
      schema,
    })),
  ];
};

const errorResponse = { $ref: '#/components/responses/Error' };

/** Pure: the OpenAPI document for a base URL. */
const buildOpenApi = (baseUrl: string) => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = {
      operationId: r.id.replace(/[^A-Za-z0-9]+/g, '_').replace(/_+$/, ''),
      summary: r.summary,
      tags: [r.family],
      parameters: parametersOf(r),
      ...(r.priceUsd ? { 'x-price-usd': r.priceUsd, 'x-price-key': r.priceKey } : {}),
      responses: {
        200: { description: 'OK', content: { [r.mimeType]: {} } },
        400: errorResponse,
        404: errorResponse,
        ...(r.priceUsd ? { 402: { description: 'Payment required (x402) or quota exceeded (Pro key)' } } : {}),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Commodity data service',
      version: API_VERSION,
      description: 'Primary-source commodity observations, paid per call with x402 (USDC) or Pro credits.',
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      responses: {
        Error: {
          description: 'Error body',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  error: {
                    type: 'object',
                    properties: {
                      code: { type: 'string' },
                      message: { type: 'string' },
                      retryable: { type: 'boolean' },
                      request_id: { type: 'string' },
                      details: { type: 'object' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
};

export { buildOpenApi };
