import type { Pod } from '../core/pod.js';
import { deviceMatches, parseSelector, type Clause } from './device-selector.js';
import { devicesOfNode, deviceResourceOf } from './instance-devices.js';
import type { DeviceClass, ExactDeviceRequest, PodResourceClaim, PodResourceClaimStatus, ResourceClaim, ResourceClaimSpec, ResourceClaimTemplate } from './resource-api.js';

/** The DRA objects a pod's claims resolve through, from the cluster model. */
export interface DraLookup {
  claim(namespace: string, name: string): ResourceClaim | undefined;
  template(namespace: string, name: string): ResourceClaimTemplate | undefined;
  deviceClass(name: string): DeviceClass | undefined;
}

/** One request of a claim: how many devices, and what each must satisfy (its class's selectors and its own). */
export interface DeviceNeed {
  readonly claim: string;
  readonly request: string;
  readonly count: number;
  readonly driver: string;
  readonly clauses: readonly Clause[];
}

/** What a pod's ResourceClaims ask of a new node: nothing, these devices, or a reason nodesmith cannot plan them. */
export type DeviceDemand =
  | { readonly kind: 'none' }
  | { readonly kind: 'devices'; readonly needs: readonly DeviceNeed[] }
  | { readonly kind: 'refused'; readonly reason: string };

/** The claims a pod lists in `spec.resourceClaims` and the names generated for it (`status.resourceClaimStatuses`). */
export interface PodClaims {
  readonly spec?: { readonly resourceClaims?: readonly PodResourceClaim[] };
  readonly status?: { readonly resourceClaimStatuses?: readonly PodResourceClaimStatus[] };
}

export function claimsOf(pod: Pod): readonly PodResourceClaim[] {
  return (pod as PodClaims).spec?.resourceClaims ?? [];
}

type Resolved = { readonly spec: ResourceClaimSpec; readonly label: string } | { readonly refused: string } | undefined;

/** The name of the ResourceClaim a pod claim stands for: named, or generated from its template for this pod. */
export function claimNameOf(pod: Pod, ref: PodResourceClaim): string | undefined {
  return ref.resourceClaimName ?? (pod as PodClaims).status?.resourceClaimStatuses?.find((s) => s.name === ref.name)?.resourceClaimName;
}

/** A pod claim's spec: the named claim, the claim generated from the template, or the template itself until then. */
function resolveClaim(pod: Pod, ref: PodResourceClaim, lookup: DraLookup): Resolved {
  const namespace = pod.metadata.namespace ?? 'default';
  const claimName = claimNameOf(pod, ref);
  if (claimName !== undefined) {
    const claim = lookup.claim(namespace, claimName);
    if (claim === undefined) return { refused: `ResourceClaim ${namespace}/${claimName} not found` };
    // An allocated claim's devices are on a node already: the pod can only run there, and no launch gives it them.
    if (claim.status?.allocation !== undefined) return undefined;
    return { spec: claim.spec, label: `ResourceClaim ${namespace}/${claimName}` };
  }
  if (ref.resourceClaimTemplateName === undefined) return { refused: `pod claim ${ref.name} names neither a ResourceClaim nor a template` };
  const template = lookup.template(namespace, ref.resourceClaimTemplateName);
  if (template === undefined) return { refused: `ResourceClaimTemplate ${namespace}/${ref.resourceClaimTemplateName} not found` };
  return { spec: template.spec.spec, label: `ResourceClaimTemplate ${namespace}/${ref.resourceClaimTemplateName}` };
}

/** The part of an exact request nodesmith does not plan, or undefined. */
function unsupportedForm(exactly: ExactDeviceRequest): string | undefined {
  if ((exactly.allocationMode ?? 'ExactCount') !== 'ExactCount') return `allocationMode ${exactly.allocationMode ?? ''} is not supported (only ExactCount)`;
  if (exactly.adminAccess === true) return 'adminAccess is not supported';
  return exactly.capacity === undefined ? undefined : 'capacity requests (consumable capacity) are not supported';
}

/** The clauses of every selector, or the first clause nodesmith does not evaluate. */
function clausesOf(selectors: readonly { readonly cel?: { readonly expression: string } }[]): Clause[] | string {
  const clauses: Clause[] = [];
  for (const selector of selectors) {
    const parsed = parseSelector(selector.cel?.expression ?? '');
    if ('unsupported' in parsed) return `selector clause "${parsed.unsupported}" is not one nodesmith evaluates (see docs/dra.md)`;
    clauses.push(...parsed.clauses);
  }
  return clauses;
}

/** The clauses of a request's class and its own selectors, and the one driver they name; or what is not supported. */
function needOf(label: string, name: string, exactly: ExactDeviceRequest, lookup: DraLookup): DeviceNeed | string {
  const where = `${label} request ${name}`;
  const unsupported = unsupportedForm(exactly);
  if (unsupported !== undefined) return `${where}: ${unsupported}`;
  const deviceClass = lookup.deviceClass(exactly.deviceClassName);
  if (deviceClass === undefined) return `${where}: DeviceClass ${exactly.deviceClassName} not found`;
  const clauses = clausesOf([...(deviceClass.spec.selectors ?? []), ...(exactly.selectors ?? [])]);
  if (typeof clauses === 'string') return `${where}: ${clauses}`;
  const drivers = new Set(clauses.flatMap((c) => (c.kind === 'driver' ? [c.value] : [])));
  const [driver] = drivers;
  if (drivers.size !== 1 || driver === undefined) return `${where}: DeviceClass ${exactly.deviceClassName} must select exactly one driver with device.driver == "…" (found ${String(drivers.size)})`;
  if (deviceResourceOf[driver] === undefined) return `${where}: driver ${driver} has no devices nodesmith can launch (known: ${Object.keys(deviceResourceOf).join(', ')})`;
  return { claim: label, request: name, count: exactly.count ?? 1, driver, clauses };
}

/** The needs of one pod claim, or why it is refused. */
function needsOfClaim(pod: Pod, ref: PodResourceClaim, lookup: DraLookup): DeviceNeed[] | string {
  const resolved = resolveClaim(pod, ref, lookup);
  if (resolved === undefined) return [];
  if ('refused' in resolved) return resolved.refused;
  if ((resolved.spec.devices?.constraints ?? []).length > 0) return `${resolved.label}: device constraints (matchAttribute) are not supported`;
  const needs: DeviceNeed[] = [];
  for (const request of resolved.spec.devices?.requests ?? []) {
    if (request.exactly === undefined) return `${resolved.label} request ${request.name}: firstAvailable is not supported`;
    const need = needOf(resolved.label, request.name, request.exactly, lookup);
    if (typeof need === 'string') return need;
    needs.push(need);
  }
  return needs;
}

/**
 * The devices a pending pod's ResourceClaims need on a new node, request by request. A claim already allocated
 * adds nothing (its devices exist); a claim nodesmith cannot evaluate exactly refuses the pod with the reason, so
 * that nothing is launched on a guess.
 */
export function deviceDemand(pod: Pod, lookup: DraLookup): DeviceDemand {
  const needs: DeviceNeed[] = [];
  for (const ref of claimsOf(pod)) {
    const claimed = needsOfClaim(pod, ref, lookup);
    if (typeof claimed === 'string') return { kind: 'refused', reason: claimed };
    needs.push(...claimed);
  }
  return needs.length === 0 ? { kind: 'none' } : { kind: 'devices', needs };
}

/** The extended resources the needs add up to (`nvidia.com/gpu: 2` …): how the planner counts devices per node. */
export function deviceRequests(needs: readonly DeviceNeed[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const need of needs) {
    const resource = deviceResourceOf[need.driver] ?? '';
    out[resource] = (out[resource] ?? 0) + need.count;
  }
  return out;
}

/**
 * Whether a node with these labels and capacity would have the devices: every request finds its count among the
 * devices that satisfy its clauses, each device used once, requests taken in order (as the allocator tries them).
 */
export function nodeHasDevices(needs: readonly DeviceNeed[], nodeLabels: Readonly<Record<string, string>>, capacity: Readonly<Record<string, number>>): boolean {
  const drivers = devicesOfNode(nodeLabels, capacity);
  const used = new Set<string>();
  for (const need of needs) {
    const devices = drivers.find((d) => d.driver === need.driver)?.devices ?? [];
    const free = devices.filter((device) => !used.has(`${need.driver}/${device.name}`) && deviceMatches(need.clauses, need.driver, device));
    if (free.length < need.count) return false;
    for (const device of free.slice(0, need.count)) used.add(`${need.driver}/${device.name}`);
  }
  return true;
}
