import t from 'tap';
import { readFileSync } from 'node:fs';
import { upstreamKubeletFields, upstreamKubeletVersion } from '../../../domain/api/kubelet-configuration.generated.js';
import { checkKubeletFields, keepingUnknownFields } from '../../../domain/api/kubelet-field-schema.js';
import { bottlerocketKubeletKeys, managedKubeletFields } from '../../../domain/api/kubelet-families.js';

void t.test('the upstream fields are the k8s.io/kubelet that Karpenter v1.15 builds with', (t) => {
  const oracle = readFileSync(new URL('../../karpenter-oracle/go.mod', import.meta.url), 'utf8');
  t.match(oracle, new RegExp(`k8s\\.io/kubelet ${upstreamKubeletVersion.replaceAll('.', '\\.')}\\b`));
  const generator = readFileSync(new URL('../../../build/kubelet-schema/go.mod', import.meta.url), 'utf8');
  t.match(generator, new RegExp(`k8s\\.io/kubelet ${upstreamKubeletVersion.replaceAll('.', '\\.')}\\b`), 'the generator pins the same module');
  t.end();
});

void t.test("every field a family writes by name is one of the kubelet's own", (t) => {
  for (const field of [...managedKubeletFields, ...Object.keys(bottlerocketKubeletKeys)]) t.ok(Object.hasOwn(upstreamKubeletFields, field), field);
  t.notOk('apiVersion' in upstreamKubeletFields, 'spec.kubelet is the body, without apiVersion and kind');
  t.end();
});

void t.test('unknown fields are named at any depth: top level, in a nested struct, in a list of structs', (t) => {
  const problems = checkKubeletFields({
    maxPods: 20, shutdownGracePeriods: '30s', logging: { format: 'json', fromat: 'text' },
    reservedMemory: [{ numaNode: 0, limit: { memory: '1Gi' } }], featureGates: { AnyGateName: true },
  });
  t.same(problems.map((p) => [p.path, p.rule]), [
    ['spec.kubelet.shutdownGracePeriods', 'kubelet-unknown-field'],
    ['spec.kubelet.logging.fromat', 'kubelet-unknown-field'],
    ['spec.kubelet.reservedMemory[0].limit', 'kubelet-unknown-field'],
  ], 'a map (featureGates) takes any key');
  t.match(problems[0]?.message, /not a field of the kubelet's KubeletConfiguration \(kubelet\.config\.k8s\.io\/v1beta1, k8s\.io\/kubelet v0\.37\.0\)/);
  t.same(checkKubeletFields(undefined), []);
  t.end();
});

void t.test('the CRD keeps unknown nested fields for the webhook to refuse, rather than pruning them in silence', (t) => {
  const kept = keepingUnknownFields(upstreamKubeletFields['logging'] ?? {});
  t.equal(kept['x-kubernetes-preserve-unknown-fields'], true);
  t.equal(kept.properties?.['options']?.['x-kubernetes-preserve-unknown-fields'], true, 'at every depth');
  const reserved = keepingUnknownFields(upstreamKubeletFields['reservedMemory'] ?? {});
  t.equal(reserved.items?.['x-kubernetes-preserve-unknown-fields'], true, 'in list items');
  t.end();
});
