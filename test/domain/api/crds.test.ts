import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { buildCrds } from '../../../domain/api/crd-definitions.js';
import { renderCrdFiles } from '../../../domain/api/crd-yaml.js';

void t.test('manifests/crds and the chart crds/ match the TypeBox schemas (run `npm run crds` when this fails)', async (t) => {
  for (const dir of ['manifests/crds', 'charts/nodesmith/crds']) {
    for (const file of renderCrdFiles()) {
      const onDisk = await readFile(join(dir, file.fileName), 'utf8').catch(() => '<missing>');
      t.equal(onDisk, file.text, `${dir}/${file.fileName} is up to date`);
    }
  }
});

type Node = Record<string, unknown>;

/** Structural-schema rules the API server enforces: every node typed, no TypeBox-only keywords. */
function nonStructural(node: Node, path: string): string[] {
  const out: string[] = [];
  const typed = typeof node['type'] === 'string' || node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true;
  if (!typed) out.push(`${path}: no type`);
  for (const banned of ['patternProperties', 'const', '$ref', 'oneOf', 'propertyNames']) if (banned in node) out.push(`${path}: ${banned}`);
  if ('properties' in node && node['additionalProperties'] !== undefined) out.push(`${path}: properties with additionalProperties`);
  for (const [key, child] of Object.entries((node['properties'] ?? {}) as Record<string, Node>)) out.push(...nonStructural(child, `${path}.${key}`));
  if (typeof node['items'] === 'object') out.push(...nonStructural(node['items'] as Node, `${path}[]`));
  if (typeof node['additionalProperties'] === 'object') out.push(...nonStructural(node['additionalProperties'] as Node, `${path}{}`));
  return out;
}

void t.test('every CRD schema is structural and carries status, columns, categories and CEL', (t) => {
  for (const { crd } of buildCrds()) {
    const spec = crd['spec'] as { names: { categories: string[]; shortNames?: string[]; kind: string }; versions: { subresources: unknown; additionalPrinterColumns: unknown[]; schema: { openAPIV3Schema: Node } }[] };
    const version = spec.versions[0];
    if (!version) throw new Error('no version');
    t.same(nonStructural(version.schema.openAPIV3Schema, spec.names.kind), [], `${spec.names.kind} is structural`);
    t.match(version.subresources, { status: {} }, `${spec.names.kind} has the status subresource`);
    t.ok(version.additionalPrinterColumns.length >= 2, `${spec.names.kind} has printer columns`);
    // Karpenter's kinds are in its category; CapacityBuffer, from the Cluster Autoscaler API, is in autoscaling.
    t.same(spec.names.categories, [spec.names.kind === 'CapacityBuffer' ? 'autoscaling' : 'karpenter']);
    t.ok(JSON.stringify(version.schema).includes('x-kubernetes-validations'), `${spec.names.kind} carries CEL rules`);
  }
  const ec2 = buildCrds().find((c) => c.fileName.includes('ec2nodeclasses'))?.crd['spec'] as { names: { shortNames: string[] } } | undefined;
  t.same(ec2?.names.shortNames, ['ec2nc', 'ec2ncs']);
  const pool = buildCrds().find((c) => c.fileName.includes('nodepools'))?.crd['spec'] as { versions: { subresources: unknown }[] } | undefined;
  t.same(pool?.versions[0]?.subresources, { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.nodes' } }, 'static NodePools can be scaled');
  const buffer = buildCrds().find((c) => c.fileName === 'autoscaling.x-k8s.io_capacitybuffers.yaml')?.crd['spec'] as { scope: string; versions: { name: string }[]; names: { shortNames: string[] } } | undefined;
  t.match(buffer, { scope: 'Namespaced', versions: [{ name: 'v1beta1' }], names: { shortNames: ['cb'] } }, 'CapacityBuffer is namespaced and served at v1beta1, as by Karpenter v1.15');
  t.end();
});
