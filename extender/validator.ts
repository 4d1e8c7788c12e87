import { Ajv } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * fastify's own ajv removes additional properties, fills defaults and coerces types; on the extender that
 * would rewrite the Pod kube-scheduler sent. This one only checks, and reports every problem at once.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: false, coerceTypes: false, allErrors: true, strict: true });
  return ({ schema }) => ajv.compile(schema as object);
}
