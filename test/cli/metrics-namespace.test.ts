import t from 'tap';
import { Counter, Registry } from 'prom-client';
import { metricsNamespaceProblem, renameMetricsNamespace } from '../../cli/metrics-namespace.js';
import { parseRunFlags } from '../../cli/run-flags.js';

void t.test('metrics are served under the configured namespace, HELP and TYPE lines included', async (t) => {
  const registry = new Registry();
  new Counter({ name: 'nodesmith_nodeclaims_created_total', help: 'NodeClaims launched (nodesmith_ in help stays).', labelNames: ['nodepool'], registers: [registry] }).inc({ nodepool: 'default' });
  new Counter({ name: 'other_total', help: 'Not ours.', registers: [registry] }).inc();
  const served = renameMetricsNamespace(await registry.metrics(), 'karpenter');
  t.match(served, /^# HELP karpenter_nodeclaims_created_total NodeClaims launched \(nodesmith_ in help stays\)\.$/m);
  t.match(served, /^# TYPE karpenter_nodeclaims_created_total counter$/m);
  t.match(served, /^karpenter_nodeclaims_created_total\{nodepool="default"\} 1$/m);
  t.match(served, /^other_total 1$/m, 'metrics outside the namespace keep their names');
  t.notMatch(served, /^nodesmith_/m, 'no sample keeps the registered namespace');
  t.equal(renameMetricsNamespace(await registry.metrics(), 'nodesmith'), await registry.metrics(), 'the default namespace serves the text unchanged');
});

void t.test('--metrics-namespace defaults to nodesmith and refuses names Prometheus cannot use', (t) => {
  const parsed = parseRunFlags(['--cluster-name=c'], {});
  t.equal(Array.isArray(parsed) ? undefined : parsed.health.metricsNamespace, 'nodesmith');
  const karpenter = parseRunFlags(['--cluster-name=c', '--metrics-namespace=karpenter'], {});
  t.equal(Array.isArray(karpenter) ? undefined : karpenter.health.metricsNamespace, 'karpenter');
  t.same(parseRunFlags(['--cluster-name=c', '--metrics-namespace=my-app'], {}), ['--metrics-namespace must be a Prometheus name ([a-zA-Z_][a-zA-Z0-9_]*); got "my-app"']);
  t.equal(metricsNamespaceProblem('_ok9'), undefined);
  t.end();
});
