import { stringify } from 'yaml';
import { buildCrds } from './crd-definitions.js';

const header = '# Generated from domain/api by `npx tsx domain/api/generate-crds.ts`. Do not edit.\n';

/** The CRD files' exact text, shared by the generator and the staleness test. */
export function renderCrdFiles(): { fileName: string; text: string }[] {
  return buildCrds().map(({ fileName, crd }) => ({
    fileName,
    text: header + stringify(crd, { lineWidth: 0, aliasDuplicateObjects: false }),
  }));
}
