import type { IAMClient } from '@aws-sdk/client-iam';
import { AddRoleToInstanceProfileCommand, CreateInstanceProfileCommand, DeleteInstanceProfileCommand, GetInstanceProfileCommand, RemoveRoleFromInstanceProfileCommand } from '../sdk/sdk.js';
import type { Clock } from '../../../domain/clock.js';
import { NodeClassNotReadyError, isDomainError, type DomainError } from '../../../domain/cloud/errors.js';
import type {
  InstanceProfile,
  InstanceProfileProvider,
  InstanceProfileRequest,
} from '../../../domain/cloud/instance-profiles.js';
import { classifyEc2Error, errorCode } from '../sdk/ec2-errors.js';
import { retryThrottled, type RetryPolicy } from '../sdk/retry-throttled.js';

/** Karpenter caches the IAM existence check for 15 minutes. */
const cacheTtlMs = 15 * 60 * 1000;

const isNoSuchEntity = (e: unknown): boolean => errorCode(e) === 'NoSuchEntity' || errorCode(e) === 'NoSuchEntityException';

/**
 * Instance profiles through IAM (Karpenter's instanceprofile.DefaultProvider). Profiles found are
 * cached for 15 minutes, so the NodeClass controller's periodic check costs no IAM call; the cache
 * entry goes with every change this process makes.
 */
export class IamInstanceProfiles implements InstanceProfileProvider {
  readonly #iam: IAMClient;
  readonly #retry: RetryPolicy;
  readonly #clock: Clock;
  readonly #cache = new Map<string, { profile: InstanceProfile; until: number }>();

  constructor(iam: IAMClient, retry: RetryPolicy) {
    this.#iam = iam;
    this.#retry = retry;
    this.#clock = retry.clock;
  }

  async get(name: string): Promise<InstanceProfile | undefined> {
    const cached = this.#cache.get(name);
    if (cached !== undefined && cached.until > this.#clock.now()) return cached.profile;
    try {
      const out = await retryThrottled(this.#retry, `getting instance profile ${name}`, () =>
        this.#iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })));
      const profile = { name, roles: (out.InstanceProfile?.Roles ?? []).flatMap((r) => (r.RoleName === undefined ? [] : [r.RoleName])) };
      this.#cache.set(name, { profile, until: this.#clock.now() + cacheTtlMs });
      return profile;
    } catch (e: unknown) {
      if (isNoSuchEntity(e)) return undefined;
      throw classify(e, `getting instance profile ${name}`);
    }
  }

  async ensure(request: InstanceProfileRequest): Promise<void> {
    const action = `creating instance profile ${request.name} for role ${request.role}`;
    try {
      const existing = await this.get(request.name) ?? await this.#create(request);
      // AddRoleToInstanceProfile takes a bare name, not a path (Karpenter strips it too).
      const role = request.role.split('/').at(-1) ?? request.role;
      if (existing.roles.length === 1 && existing.roles[0] === role) return;
      for (const old of existing.roles) {
        await this.#call(action, () => this.#iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: request.name, RoleName: old })));
      }
      await this.#call(action, () => this.#iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: request.name, RoleName: role })));
      this.#cache.set(request.name, { profile: { name: request.name, roles: [role] }, until: this.#clock.now() + cacheTtlMs });
    } catch (e: unknown) {
      this.#cache.delete(request.name);
      if (isNoSuchEntity(e)) throw new NodeClassNotReadyError(`${action}: role ${request.role} not found`, { cause: e });
      throw classify(e, action);
    }
  }

  async delete(name: string): Promise<void> {
    this.#cache.delete(name);
    const action = `deleting instance profile ${name}`;
    try {
      const out = await this.#call(action, () => this.#iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })));
      for (const role of out.InstanceProfile?.Roles ?? []) {
        await this.#call(action, () => this.#iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: role.RoleName })));
      }
      await this.#call(action, () => this.#iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: name })));
    } catch (e: unknown) {
      if (isNoSuchEntity(e)) return;
      throw classify(e, action);
    }
  }

  async #create(request: InstanceProfileRequest): Promise<InstanceProfile> {
    await this.#call(`creating instance profile ${request.name}`, () => this.#iam.send(new CreateInstanceProfileCommand({
      InstanceProfileName: request.name,
      Path: request.path,
      Tags: Object.entries(request.tags).map(([Key, Value]) => ({ Key, Value })),
    })));
    return { name: request.name, roles: [] };
  }

  #call<T>(action: string, call: () => Promise<T>): Promise<T> {
    return retryThrottled(this.#retry, action, call);
  }
}

/** IAM shares EC2's throttling and auth codes; anything else is the NodeClass's problem to report. */
function classify(e: unknown, action: string): DomainError {
  if (isDomainError(e)) return e;
  const mapped = classifyEc2Error(e, action);
  return mapped.code === 'CreateError' ? new NodeClassNotReadyError(mapped.message, { cause: e }) : mapped;
}
