import { Gauge, type Registry } from 'prom-client';

/**
 * Karpenter's build_info: a constant 1 labelled with what was built. Its labels are Go's (`goversion`, `goarch`);
 * nodesmith's runtime is Node.js, so they carry `process.version` and `process.arch` under the same names,
 * and the dashboards' and alerts' queries keep working.
 */
export function registerBuildInfo(registry: Registry, build: { version: string; commit?: string | undefined; runtime: { version: string; arch: string } }): void {
  new Gauge({
    name: 'nodesmith_build_info',
    help: "A metric with a constant '1' value labeled by version from which nodesmith was built.",
    labelNames: ['version', 'goversion', 'goarch', 'commit'] as const,
    registers: [registry],
  }).set({ version: build.version, goversion: build.runtime.version, goarch: build.runtime.arch, commit: build.commit ?? '' }, 1);
}
