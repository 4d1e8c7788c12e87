/** Returns the family part of an EC2 instance type name, e.g. "c7i" for "c7i.2xlarge". */
export function instanceFamilyOf(instanceType: string): string {
  const dot = instanceType.indexOf('.');
  return dot < 0 ? instanceType : instanceType.slice(0, dot);
}
