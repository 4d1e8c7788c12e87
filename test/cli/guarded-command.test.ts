import t from 'tap';
import { guardedCommand, type CommandIo } from '../../cli/command.js';

const spec = { name: 'demo', summary: 'a command for the test', usage: '' };

function io(): { io: CommandIo; err: () => string } {
  let err = '';
  return { io: { stdout: () => undefined, stderr: (s) => { err += s; }, interrupted: new Promise(() => undefined) }, err: () => err };
}

void t.test('a guarded command that throws prints one line naming itself and exits 1', async (t) => {
  const c = io();
  const command = guardedCommand(spec, () => Promise.reject(new Error('no such file')));
  t.equal(await command.run([], c.io), 1);
  t.equal(c.err(), 'demo: no such file\n');
});

void t.test('a guarded command exits with the failure code it was given, and prints what was thrown when it is no Error', async (t) => {
  const c = io();
  const command = guardedCommand(spec, () => Promise.reject(new Error('x', { cause: 'y' })), 2);
  t.equal(await command.run([], c.io), 2);
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what a dependency may throw
  const odd = guardedCommand(spec, () => Promise.reject('a string'));
  t.equal(await odd.run([], c.io), 1);
  t.equal(c.err(), 'demo: x\ndemo: a string\n');
});

void t.test('a guarded command that succeeds returns its own exit code and keeps its spec', async (t) => {
  const c = io();
  const command = guardedCommand(spec, (argv) => Promise.resolve(argv.length));
  t.equal(await command.run(['a', 'b', 'c'], c.io), 3);
  t.same({ name: command.name, summary: command.summary, usage: command.usage }, spec);
  t.equal(c.err(), '');
});
