import type * as k8s from '@kubernetes/client-node';

export interface DemoSnapshot { pods: k8s.V1Pod[]; nodes: k8s.V1Node[]; events: k8s.CoreV1Event[] }

function waitingRow(pod: k8s.V1Pod, events: readonly k8s.CoreV1Event[]): string | undefined {
  const why = events.filter((e) => e.involvedObject.name === pod.metadata?.name && e.reason === 'FailedProvisioning').at(-1)?.message;
  return why === undefined ? undefined : `nodesmith on ${pod.metadata?.name ?? ''}: ${why}`;
}

/**
 * One screen of the demo: the elapsed time and the pods running, a `nodesmith top` frame of the same cluster model
 * (every node, real and planned, with its price and state; totals; pending pods), and nodesmith's own
 * FailedProvisioning reason for each pod it cannot place.
 */
export function render(snapshot: DemoSnapshot, elapsedS: number, topFrame: readonly string[]): string {
  const running = snapshot.pods.filter((p) => p.status?.phase === 'Running').length;
  const reasons = snapshot.pods.filter((p) => !p.spec?.nodeName).map((p) => waitingRow(p, snapshot.events)).filter((r) => r !== undefined);
  return [`t=${elapsedS.toFixed(0)}s  pods running ${String(running)}/${String(snapshot.pods.length)}`, '', ...topFrame, ...(reasons.length > 0 ? ['', ...reasons] : [])].join('\n');
}
