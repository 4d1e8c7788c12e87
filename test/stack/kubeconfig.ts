import { readFile, writeFile } from 'node:fs/promises';

const b64 = async (path: string): Promise<string> => (await readFile(path)).toString('base64');

/** Writes a kubeconfig with embedded credentials, so every client (ours, kubectl, the controllers) can use it. */
export async function writeKubeconfig(
  path: string,
  options: { server: string; caCert: string; clientCert: string; clientKey: string; user: string },
): Promise<void> {
  const text = `apiVersion: v1
kind: Config
clusters:
- name: nodesmith-test
  cluster:
    server: ${options.server}
    certificate-authority-data: ${await b64(options.caCert)}
users:
- name: ${options.user}
  user:
    client-certificate-data: ${await b64(options.clientCert)}
    client-key-data: ${await b64(options.clientKey)}
contexts:
- name: nodesmith-test
  context:
    cluster: nodesmith-test
    user: ${options.user}
current-context: nodesmith-test
`;
  await writeFile(path, text, { mode: 0o600 });
}
