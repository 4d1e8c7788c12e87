/** A parsed `aws:///<zone>/<instance-id>` provider ID, as the kubelet's AWS provider writes it. */
export interface ParsedProviderId {
  readonly zone: string;
  readonly instanceId: string;
}

const providerIdPattern = /^aws:\/\/\/([a-z0-9-]+)\/(i-[0-9a-f]+)$/;

export function formatProviderId(zone: string, instanceId: string): string {
  return `aws:///${zone}/${instanceId}`;
}

/** Undefined for anything that is not one of our EC2 provider IDs (e.g. kwok's `kwok://…`). */
export function parseProviderId(providerId: string): ParsedProviderId | undefined {
  const m = providerIdPattern.exec(providerId);
  if (m?.[1] === undefined || m[2] === undefined) return undefined;
  return { zone: m[1], instanceId: m[2] };
}
