import { Ajv, type Options } from 'ajv';

/** date-time as RFC 3339, the way metav1.Time serialises; int32/int64 are range hints only. */
const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * An ajv that understands our schemas: the Kubernetes vendor keywords are annotations (the API
 * server evaluates CEL; our TS rules re-implement it), and formats are the ones CRDs use.
 */
export function createSchemaAjv(options: Pick<Options, 'useDefaults' | 'code'> = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: options.useDefaults ?? false,
    ...(options.code === undefined ? {} : { code: options.code }),
  });
  ajv.addVocabulary([
    'x-kubernetes-validations', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys',
    'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields',
  ]);
  ajv.addFormat('date-time', dateTime);
  ajv.addFormat('int32', true);
  ajv.addFormat('int64', true);
  return ajv;
}
