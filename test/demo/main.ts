import { startStack } from '../stack/stack.js';

// The demo runs on the same real stack as the tests. At this stage it shows the stack itself;
// later stages add the product and a workload.
const log = (line: string): void => { process.stdout.write(`${line}\n`); };
log('starting the local stack (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)…');
const started = Date.now();
const stack = await startStack();
log(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)}s; state and logs in ${stack.dir}`);
log(`  kube-apiserver  ${stack.server}`);
for (const c of stack.components.values()) log(`  ${c.name.padEnd(24)} pid ${String(c.process.pid)}  log ${c.logPath}`);
log(`  kubectl         ${stack.bin}/kubectl --kubeconfig ${stack.kubeconfigPath} get nodes`);
log('press Ctrl-C to stop');
await new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
log('stopping…');
await stack.stop();
log('stopped cleanly');
