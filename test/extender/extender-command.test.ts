import t from 'tap';
import { extenderCommand, parseExtenderFlags } from '../../cli/extender-command.js';

void t.test('flags default to plain HTTP on port 8444', (t) => {
  t.same(parseExtenderFlags([]), { host: '0.0.0.0', port: 8444, kubeconfig: undefined, tls: undefined, logLevel: 'info', scaleInRank: true });
  t.end();
});

void t.test('TLS needs both files and every problem is reported at once', (t) => {
  t.same(parseExtenderFlags(['--cert-file', 'tls.crt', '--key-file', 'tls.key']), {
    host: '0.0.0.0', port: 8444, kubeconfig: undefined, tls: { certFile: 'tls.crt', keyFile: 'tls.key' }, logLevel: 'info', scaleInRank: true,
  });
  const problems = parseExtenderFlags(['--port', '70000', '--cert-file', 'tls.crt', '--log-level', 'loud']);
  t.ok(Array.isArray(problems));
  t.equal((problems as string[]).length, 3);
  t.end();
});

void t.test('bad flags exit 2 with the problems on stderr', async (t) => {
  let stderr = '';
  const code = await extenderCommand.run(['--port', 'x'], { stdout: () => undefined, stderr: (text) => { stderr += text; }, interrupted: Promise.resolve() });
  t.equal(code, 2);
  t.match(stderr, /--port must be 0–65535, got "x"/);
});

void t.test('an unknown flag exits 1 with the parser message', async (t) => {
  let stderr = '';
  const code = await extenderCommand.run(['--nope'], { stdout: () => undefined, stderr: (text) => { stderr += text; }, interrupted: Promise.resolve() });
  t.equal(code, 1);
  t.match(stderr, /extender: .*--nope/);
});
