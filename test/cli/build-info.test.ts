import t from 'tap';
import { Registry } from 'prom-client';
import { registerBuildInfo } from '../../cli/build-info.js';
import { renameMetricsNamespace } from '../../cli/metrics-namespace.js';

void t.test("build_info carries Karpenter's label names, with Node.js in the Go runtime's labels", async (t) => {
  const registry = new Registry();
  registerBuildInfo(registry, { version: '0.1.0', commit: 'abc123', runtime: { version: 'v22.1.0', arch: 'x64' } });
  const served = renameMetricsNamespace(await registry.metrics(), 'karpenter');
  t.match(served, /^karpenter_build_info\{version="0.1.0",goversion="v22.1.0",goarch="x64",commit="abc123"\} 1$/m);
});

void t.test('a source checkout has an empty commit', async (t) => {
  const registry = new Registry();
  registerBuildInfo(registry, { version: '0.1.0', runtime: { version: 'v24.0.0', arch: 'arm64' } });
  t.match(await registry.metrics(), /commit=""\} 1$/m);
});
