import t from 'tap';
import { podKey, podKeyOf } from '../../domain/core/object-key.js';

void t.test('a pod has one key, with a missing or empty namespace read as "default" as the API server fills it', (t) => {
  t.equal(podKey('apps', 'web-0'), 'apps/web-0');
  t.equal(podKey(undefined, 'web-0'), 'default/web-0');
  t.equal(podKey('', 'web-0'), 'default/web-0');
  t.equal(podKeyOf({ metadata: { name: 'web-0' } }), 'default/web-0');
  t.end();
});
