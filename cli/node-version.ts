/**
 * The oldest Node.js line nodesmith runs on (package.json `engines` says the same; a test holds them together).
 * Node.js 20 reached end of life in April 2026, and the AWS SDK warns at every start on anything older than 22.
 */
export const minimumNodeMajor = 22;

/** Why this Node.js (`process.version`, e.g. "v20.20.2") cannot run nodesmith, or undefined when it can. */
export function unsupportedNodeReason(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (Number.isInteger(major) && major >= minimumNodeMajor) return undefined;
  return `nodesmith needs Node.js ${String(minimumNodeMajor)} or newer; this is ${version}`;
}
