/** The AMI families of EC2NodeClass spec.amiFamily (Karpenter v1). Kept apart from the schema so that code which
 * only needs the names (the simulation's worker) does not load TypeBox. */
export const amiFamilies = ['AL2', 'AL2023', 'Bottlerocket', 'Custom', 'Windows2019', 'Windows2022', 'Windows2025'] as const;

/**
 * The AMI family a class launches with, as Karpenter's EC2NodeClass.AMIFamily(): spec.amiFamily when set, else the
 * family of the alias (`bottlerocket@latest` → Bottlerocket), else Custom.
 */
export function resolvedAmiFamily(spec: {
  readonly amiFamily?: string | undefined;
  readonly amiSelectorTerms: readonly { readonly alias?: string | undefined }[];
}): (typeof amiFamilies)[number] {
  const named = amiFamilies.find((family) => family === spec.amiFamily);
  if (named !== undefined) return named;
  const aliasFamily = spec.amiSelectorTerms.find((term) => term.alias !== undefined)?.alias?.split('@')[0]?.toLowerCase();
  return amiFamilies.find((family) => family.toLowerCase() === aliasFamily) ?? 'Custom';
}
