import t from 'tap';
import { fnv1a32, fnv1a64 } from '../../domain/fnv1a.js';

void t.test('FNV-1a gives the published test vectors, 32 and 64 bits', (t) => {
  t.equal(fnv1a32(''), 0x811c9dc5);
  t.equal(fnv1a32('a'), 0xe40c292c);
  t.equal(fnv1a32('foobar'), 0xbf9cf968);
  t.equal(fnv1a64(''), 0xcbf29ce484222325n);
  t.equal(fnv1a64('a'), 0xaf63dc4c8601ec8cn);
  t.equal(fnv1a64('foobar'), 0x85944171f73967e8n);
  t.end();
});
