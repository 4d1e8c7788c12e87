import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startComponent } from '../stack/component.js';

void t.test("a component that fails at once has its last words in its log when its exit is seen: the port-taken retry reads them there", async (t) => {
  for (let i = 0; i < 20; i++) {
    const component = startComponent({ name: 'quick', command: '/bin/sh', args: ['-c', 'echo "listen tcp 127.0.0.1:2379: bind: address already in use" >&2; exit 1'], logDir: mkdtempSync(join(tmpdir(), 'component-')) });
    const code = await component.exited;
    t.equal(code, 1);
    t.match(component.tail(), /address already in use/, `start ${String(i + 1)}: the message is in the log`);
  }
});
