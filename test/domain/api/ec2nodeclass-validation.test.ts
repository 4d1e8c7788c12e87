import t from 'tap';
import { defaultEC2NodeClass, validateEC2NodeClass } from '../../../domain/api/ec2nodeclass-validation.js';
import { ec2NodeClass } from '../../webhooks/review-fixture.js';
import { ec2NodeClassCases as cases } from './ec2nodeclass-cases.js';
import { setIn } from './set-in.js';

void t.test('EC2NodeClass validation rules, one valid or invalid case each', (t) => {
  for (const c of cases) {
    const nc = ec2NodeClass();
    for (const [path, value] of c.set) setIn(nc, path, value);
    const problems = validateEC2NodeClass(defaultEC2NodeClass(nc));
    if (c.expect === undefined) t.same(problems, [], c.name);
    else t.ok(problems.some((p) => p.rule === c.expect?.rule && p.path === c.expect.path), `${c.name} (${JSON.stringify(problems.map((p) => [p.rule, p.path]))})`);
  }
  t.end();
});

void t.test('metadataOptions default to IMDSv2 required with hop limit 1', (t) => {
  const defaulted = defaultEC2NodeClass(ec2NodeClass()) as { spec: { metadataOptions?: unknown } };
  t.same(defaulted.spec.metadataOptions, { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' });
  const partial = defaultEC2NodeClass(ec2NodeClass({ metadataOptions: { httpPutResponseHopLimit: 2 } })) as { spec: { metadataOptions?: unknown } };
  t.same(partial.spec.metadataOptions, { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 2, httpTokens: 'required' }, 'user values kept, the rest defaulted');
  t.end();
});

void t.test('switching from role to instanceProfile is refused on update', (t) => {
  const old = ec2NodeClass();
  const next = ec2NodeClass({ role: undefined, instanceProfile: 'p' });
  Reflect.deleteProperty(next.spec, 'role');
  t.ok(validateEC2NodeClass(next, old).some((p) => p.rule === 'role-profile-switch'));
  t.same(validateEC2NodeClass(ec2NodeClass(), ec2NodeClass()), [], 'keeping the role is fine');
  t.end();
});
