/**
 * A port freePort found can be taken by another process (another test file's stack) before the component binds it:
 * the component then exits with "address already in use" before it is ready. Such a start is tried again on new
 * ports, a few times; any other failure is thrown at once. Every component of the stack starts this way (etcd, the
 * API server, kube-controller-manager, kube-scheduler, kwok, Kueue): the suite once lost consolidation.test.ts to
 * kube-controller-manager's port, taken by a stack started beside it. `attempt` takes its ports afresh on each try (`tries`
 * from 1) and rejects with an error whose message says "<name> exited" and carries the component's log tail, as the
 * stack's starters do.
 */
export async function onFreshPorts<T>(name: string, attempt: (tries: number) => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt(tries);
    } catch (error) {
      const taken = error instanceof Error && error.message.includes(`${name} exited`) && error.message.includes('address already in use');
      if (!taken || tries >= 3) throw error;
    }
  }
}
