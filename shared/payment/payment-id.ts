/**
 * The x402 `payment-identifier` extension, as @x402/extensions/payment-identifier defines it
 * (test/payment/payment-id.test.ts holds this module to the library's own functions). The library
 * module compiles its JSON schema with Ajv at import, which would add about 140 KB to every Lambda
 * bundle; these few lines do the same for the one thing the service needs.
 */
import * as z from '../zod';

const PAYMENT_IDENTIFIER = 'payment-identifier';
const ID = { minLength: 16, maxLength: 128, pattern: '^[a-zA-Z0-9_-]+$' } as const;

/** What the 402 declares: ids are optional; this is their schema. */
const paymentIdentifierDeclaration = () => ({
  info: { required: false },
  schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { required: { type: 'boolean' }, id: { type: 'string', ...ID } },
    required: ['required'],
  },
});

const Extension = z.object({
  info: z.object({
    required: z.boolean(),
    id: z.optional(z.string().check(z.minLength(ID.minLength), z.maxLength(ID.maxLength), z.regex(new RegExp(ID.pattern)))),
  }),
});

/**
 * The payment id a v2 payload carries, if any.
 * @returns ok with the id (null when the payload names none), or the problem with the extension
 */
const paymentIdOf = (extensions: Readonly<Record<string, unknown>> | undefined): { ok: true; id: string | null } | { ok: false; issues: string[] } => {
  const ext = extensions?.[PAYMENT_IDENTIFIER];
  if (ext === undefined) return { ok: true, id: null };
  const parsed = Extension.safeParse(ext);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
  return { ok: true, id: parsed.data.info.id ?? null };
};

export { PAYMENT_IDENTIFIER, paymentIdentifierDeclaration, paymentIdOf };
