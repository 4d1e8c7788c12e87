/**
 * Renders manifests/ from charts/nodesmith (the one source), so that `kubectl apply -f manifests/...` and
 * `helm install` install the same objects. CRDs are not rendered here: `npm run crds` writes them from
 * domain/api into both manifests/crds and the chart's crds/.
 *   npm run manifests [-- OUT_DIR]      (default: manifests)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { documentsBySource, helmTemplate } from './helm.js';

const valuesFile = fileURLToPath(new URL('./manifests-values.yaml', import.meta.url));
const header = '# Rendered from charts/nodesmith by `npm run manifests` (test/helm/manifests-values.yaml): edit the chart.\n';

/** The drop-in scheduler configuration is a file for the control-plane host, so manifests/ holds the ConfigMap's data. */
function dropInConfig(configMapYaml: string): string {
  const data: unknown = parseDocument(configMapYaml).getIn(['data', 'config.yaml']);
  if (typeof data !== 'string') throw new Error('the drop-in ConfigMap has no data.config.yaml');
  return data;
}

/** Every rendered manifest file: path under manifests/ → content. */
export async function renderManifests(): Promise<Map<string, string>> {
  const bySource = documentsBySource(await helmTemplate({ valuesFiles: [valuesFile] }));
  const files = new Map<string, string>();
  for (const [source, docs] of bySource) {
    const path = source.replace(/^templates\//, '');
    if (path === 'scheduler/drop-in-config.yaml') {
      files.set(path, header + dropInConfig(docs.join('---\n')));
      continue;
    }
    files.set(path, header + docs.join('---\n'));
  }
  return files;
}

/** The manifests/ folders that are rendered from the chart (crds/ and examples/ are not). */
export const renderedFolders = ['base', 'controller', 'extender', 'scheduler', 'webhooks'] as const;

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? 'manifests');
  for (const [path, text] of await renderManifests()) {
    await mkdir(dirname(join(outDir, path)), { recursive: true });
    await writeFile(join(outDir, path), text);
    process.stdout.write(`wrote ${join(outDir, path)}\n`);
  }
}
