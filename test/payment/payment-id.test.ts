/** Our payment-identifier code agrees with @x402/extensions' own (which the Lambdas do not bundle). */
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
  PAYMENT_IDENTIFIER as LIB_NAME,
} from '@x402/extensions/payment-identifier';
import { describe, expect, it } from 'vitest';
import { PAYMENT_IDENTIFIER, paymentIdentifierDeclaration, paymentIdOf } from '../../shared/payment/payment-id';

describe('payment-identifier', () => {
  it('declares exactly what the library declares', () => {
    expect(PAYMENT_IDENTIFIER).toBe(LIB_NAME);
    expect(paymentIdentifierDeclaration()).toEqual(declarePaymentIdentifierExtension(false));
  });

  it.each([
    ['a generated id', appendPaymentIdentifierToExtensions({ [LIB_NAME]: declarePaymentIdentifierExtension(false) })],
    ['no extension', {}],
    ['declared, no id', { [LIB_NAME]: declarePaymentIdentifierExtension(false) }],
    ['too short', { [LIB_NAME]: { info: { required: false, id: 'short' } } }],
    ['129 characters', { [LIB_NAME]: { info: { required: false, id: 'a'.repeat(129) } } }],
    ['128 characters', { [LIB_NAME]: { info: { required: false, id: 'a'.repeat(128) } } }],
    ['a space', { [LIB_NAME]: { info: { required: false, id: 'pay_0123456789 abcdef' } } }],
    ['a number', { [LIB_NAME]: { info: { required: false, id: 12345678901234 } } }],
  ])('reads %s as the library does', (_name, extensions) => {
    const lib = extractAndValidatePaymentIdentifier({ x402Version: 2, extensions } as never);
    const ours = paymentIdOf(extensions as Record<string, unknown>);
    expect(ours.ok).toBe(lib.validation.valid);
    if (ours.ok) expect(ours.id).toBe(lib.id);
  });
});
