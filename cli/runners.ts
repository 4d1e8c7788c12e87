import type { Clock } from '../domain/clock.js';
import { ControllerRunner, type Controller, type ControllerLogger, type ControllerRunnerOptions } from '../provisioner/runtime/controller-runner.js';
import type { Lease, Listed, ListedController, Loop, LoopName, RunnerName } from './controllers.js';

/** What the wiring that built a runner's controllers says about running them. */
export interface RunnerHooks {
  readonly log: ControllerLogger;
  readonly onError?: ControllerRunnerOptions['onError'];
  readonly onReconciled?: ControllerRunnerOptions['onReconciled'];
  /** Subscribes what wakes its controllers before their period, given the runner's wake and its controllers' names; returns the unsubscribe. */
  readonly wakes?: (wake: (name: string) => void, names: readonly string[]) => () => void;
  /** On the way down: after the wakes are dropped and the loops it stops with have stopped, before the runner stops. */
  readonly beforeStop?: () => void;
  /** After the runner's last pass: what its controllers began (launches, the simulation worker). */
  readonly afterStop?: () => Promise<void>;
}

export interface ListOptions {
  readonly clock: Clock;
  /** Whether this replica holds the Lease now, and whether it may act (the Karpenter guard's word too). */
  readonly gates: Readonly<Record<Exclude<Lease, 'every replica'>, () => boolean>>;
  readonly hooks: Readonly<Partial<Record<RunnerName, RunnerHooks>>>;
}

export interface RunningList {
  /** Makes the named controller due now on the runner that runs it; a name no runner runs is ignored. */
  wake(name: string): void;
  /** Stops these runs one after another; one this list did not start is passed over. */
  stop(runs: readonly (RunnerName | LoopName)[]): Promise<void>;
}

/**
 * A runner's wake that lets one wake a name through at most every `minIntervalMs`: it is coalesced with the pass it
 * would start anyway, and the controller's period catches anything in between.
 */
export function coalescedWake(wake: (name: string) => void, minIntervalMs: number, clock: Clock): (name: string) => void {
  const lastWake = new Map<string, number>();
  return (name) => {
    const now = clock.now();
    if (now - (lastWake.get(name) ?? 0) < minIntervalMs) return;
    lastWake.set(name, now);
    wake(name);
  };
}

interface Run {
  stop(): Promise<void>;
}

/**
 * Starts the leader's part of the list in list order: one ControllerRunner for each runner the list names, running
 * exactly the controllers listed for it, in list order, and gated on their Lease; each leader loop once. The entries
 * app.ts starts (the informers, the Lease, the servers) carry no loop and are passed over. This is the only place a
 * ControllerRunner is made, so nothing runs that the list does not name.
 */
export function startList(list: readonly Listed[], options: ListOptions): RunningList {
  const runners = runnersIn(list, options);
  const runs = new Map<RunnerName | LoopName, Run>();
  const byName = new Map<string, ControllerRunner>();
  const loops = new Set<Loop>();
  for (const entry of list) {
    if ('controller' in entry) {
      if (!runs.has(entry.runner)) runs.set(entry.runner, startRunner(entry.runner, runners, options, byName));
    } else if (entry.loop !== undefined && !loops.has(entry.loop)) {
      loops.add(entry.loop);
      entry.loop.start();
      if (entry.stopsWith === undefined) runs.set(entry.runner, entry.loop);
    }
  }
  return {
    wake: (name) => { byName.get(name)?.wake(name); },
    stop: async (names) => {
      for (const name of names) await runs.get(name)?.stop();
    },
  };
}

interface PlannedRunner {
  readonly controllers: Controller[];
  readonly lease: Lease;
  readonly hooks: RunnerHooks;
  /** Loops stopped within this runner's stop. */
  readonly loops: Loop[];
}

/** Each runner's controllers and loops, checked: unique names, each the name its controller runs by, one Lease a runner. */
function runnersIn(list: readonly Listed[], options: ListOptions): Map<RunnerName, PlannedRunner> {
  const names = new Set<string>();
  const runners = new Map<RunnerName, PlannedRunner>();
  const planned = (runner: RunnerName, lease: Lease): PlannedRunner => {
    const hooks = options.hooks[runner];
    if (hooks === undefined) throw new Error(`the list puts controllers on runner "${runner}", but nothing wired its hooks`);
    const found = runners.get(runner) ?? { controllers: [], lease, hooks, loops: [] };
    runners.set(runner, found);
    return found;
  };
  for (const entry of list) {
    if (names.has(entry.name)) throw new Error(`the list names "${entry.name}" twice`);
    names.add(entry.name);
    if ('controller' in entry) planned(entry.runner, entry.lease).controllers.push(checked(entry, runners));
    else if (entry.stopsWith !== undefined && entry.loop !== undefined) planned(entry.stopsWith, entry.lease).loops.push(entry.loop);
  }
  // A loop that stops with a runner that never starts would never be stopped.
  for (const [name, runner] of runners) if (runner.controllers.length === 0) throw new Error(`runner "${name}" has loops to stop but no controllers`);
  return runners;
}

function checked(entry: ListedController, runners: ReadonlyMap<RunnerName, PlannedRunner>): Controller {
  if (entry.controller.name !== entry.name) throw new Error(`the list names "${entry.name}", but its controller runs as "${entry.controller.name}"`);
  const lease = runners.get(entry.runner)?.lease;
  if (lease !== undefined && lease !== entry.lease) throw new Error(`runner "${entry.runner}" would run "${entry.name}" (${entry.lease}) beside controllers that need: ${lease}`);
  return entry.controller;
}

function startRunner(name: RunnerName, runners: ReadonlyMap<RunnerName, PlannedRunner>, options: ListOptions, byName: Map<string, ControllerRunner>): Run {
  const planned = runners.get(name);
  if (planned === undefined) throw new Error(`runner "${name}" has no controllers`);
  const { controllers, lease, hooks, loops } = planned;
  const runner = new ControllerRunner({
    clock: options.clock, controllers, log: hooks.log,
    ...(lease === 'every replica' ? {} : { shouldRun: options.gates[lease] }),
    ...(hooks.onError === undefined ? {} : { onError: hooks.onError }),
    ...(hooks.onReconciled === undefined ? {} : { onReconciled: hooks.onReconciled }),
  });
  for (const c of controllers) byName.set(c.name, runner);
  const running = runner.run();
  const unsubscribe = hooks.wakes?.((controller) => { runner.wake(controller); }, controllers.map((c) => c.name));
  return {
    stop: async () => {
      unsubscribe?.();
      for (const loop of loops) await loop.stop();
      hooks.beforeStop?.();
      runner.stop();
      await running;
      await hooks.afterStop?.();
    },
  };
}
