import type { Clock } from '../clock.js';
import type {
  CloudProvider,
  InstanceTypeInfo,
  LaunchedInstance,
  LaunchRequest,
  ListOptions,
} from './cloud-provider.js';
import { InsufficientCapacityError, NodeClaimNotFoundError } from './errors.js';
import { byPrice, offeringKey, type OfferingKey } from './offering.js';
import { formatProviderId } from './provider-id.js';
import type { RepairPolicy } from './repair-policy.js';
import { UnavailableOfferings } from './unavailable-offerings.js';
import { nodeClaimKey } from '../karpenter-keys.js';
import { labels } from '../well-known-labels.js';

/**
 * An in-memory CloudProvider for loop tests (Karpenter's fake/cloudprovider.go): it launches
 * the cheapest available offering, honours injected capacity failures and the ICE cache, and
 * records every request. No I/O, so tests run without moto.
 */
export class FakeCloudProvider implements CloudProvider {
  readonly name = 'fake';
  readonly createRequests: LaunchRequest[] = [];
  readonly deleted: string[] = [];
  /** What each List asked for. */
  readonly listCalls: ListOptions[] = [];
  /** Offering keys (`<capacityType>:<type>:<zone>`) that fail with insufficient capacity. */
  readonly insufficientCapacity = new Set<string>();
  readonly instances = new Map<string, LaunchedInstance>();
  /** Instance ids List leaves out while Get still finds them, as a filtered or partial listing would. */
  readonly unlisted = new Set<string>();
  readonly unavailableOfferings: UnavailableOfferings;
  instanceTypes: InstanceTypeInfo[] = [];
  /** Ready False or Unknown for 30 minutes, like the AWS provider's kubelet policies. */
  policies: readonly RepairPolicy[] = [
    { conditionType: 'Ready', conditionStatus: 'False', tolerationMs: 30 * 60_000 },
    { conditionType: 'Ready', conditionStatus: 'Unknown', tolerationMs: 30 * 60_000 },
  ];
  /** Thrown (once) by the next call of any method, then cleared. */
  nextError: Error | undefined;
  readonly #clock: Clock;
  #sequence = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
    this.unavailableOfferings = new UnavailableOfferings(clock);
  }

  create(request: LaunchRequest): Promise<LaunchedInstance> {
    this.createRequests.push(request);
    return settle(() => this.#create(request));
  }

  delete(providerID: string): Promise<void> {
    return settle(() => {
      const instance = this.#find(providerID);
      this.instances.delete(instance.instanceId);
      this.deleted.push(providerID);
    });
  }

  get(providerID: string): Promise<LaunchedInstance> {
    return settle(() => this.#find(providerID));
  }

  list(options: ListOptions = {}): Promise<LaunchedInstance[]> {
    this.listCalls.push(options);
    return settle(() => {
      this.#throwInjected();
      return [...this.instances.values()].filter((i) => !this.unlisted.has(i.instanceId) && (options.nodeClaimName === undefined || i.nodeClaimName === options.nodeClaimName));
    });
  }

  getInstanceTypes(): Promise<InstanceTypeInfo[]> {
    return settle(() => {
      this.#throwInjected();
      return this.instanceTypes;
    });
  }

  repairPolicies(): readonly RepairPolicy[] {
    return this.policies;
  }

  #create(request: LaunchRequest): LaunchedInstance {
    this.#throwInjected();
    const candidates = this.unavailableOfferings
      .filterAvailable(request.offerings.filter((o) => o.capacityType === request.capacityType))
      .sort(byPrice);
    const failed: OfferingKey[] = [];
    for (const o of candidates) {
      if (this.insufficientCapacity.has(offeringKey(o))) {
        failed.push(o);
        this.unavailableOfferings.markUnavailable(o);
        continue;
      }
      return this.#launch(request, o);
    }
    throw new InsufficientCapacityError(
      `launching nodeclaim ${request.nodeClaimName}: no capacity`,
      failed,
    );
  }

  #launch(request: LaunchRequest, o: OfferingKey): LaunchedInstance {
    const instanceId = `i-${(++this.#sequence).toString(16).padStart(17, '0')}`;
    const image = request.nodeClass.amis[0]?.id ?? 'ami-fake';
    const instance: LaunchedInstance = {
      instanceId,
      providerID: formatProviderId(o.zone, instanceId),
      instanceType: o.instanceType,
      zone: o.zone,
      capacityType: o.capacityType,
      imageId: image,
      launchTime: this.#clock.now(),
      state: 'running',
      nodeClaimName: request.nodeClaimName,
      nodePoolName: request.nodePoolName,
      tags: {
        [nodeClaimKey]: request.nodeClaimName,
        [labels.nodePool]: request.nodePoolName,
      },
    };
    this.instances.set(instanceId, instance);
    return instance;
  }

  #find(providerID: string): LaunchedInstance {
    this.#throwInjected();
    const instance = [...this.instances.values()].find((i) => i.providerID === providerID);
    if (instance === undefined)
      throw new NodeClaimNotFoundError(`instance ${providerID} not found`);
    return instance;
  }

  #throwInjected(): void {
    const e = this.nextError;
    if (e === undefined) return;
    this.nextError = undefined;
    throw e;
  }
}

/** Runs synchronous fake logic so that its throws arrive as rejections, like a real call's. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (e: unknown) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
}
