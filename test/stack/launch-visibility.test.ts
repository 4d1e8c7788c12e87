import t from 'tap';
import { LaunchVisibility } from './launch-visibility.js';

const fleetReply = (ids: readonly string[]): string =>
  `<CreateFleetResponse><fleetInstanceSet><item><launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateId>lt-1</launchTemplateId><version>1</version></launchTemplateSpecification></launchTemplateAndOverrides><instanceIds>${ids.map((id) => `<item>${id}</item>`).join('')}</instanceIds></item></fleetInstanceSet></CreateFleetResponse>`;
const reservation = (id: string): string => `<item><reservationId>r-${id}</reservationId><instancesSet><item><instanceId>${id}</instanceId><tagSet><item><key>a</key></item></tagSet></item></instancesSet></item>`;
const describeReply = (ids: readonly string[]): string => `<DescribeInstancesResponse><reservationSet>${ids.map(reservation).join('')}</reservationSet></DescribeInstancesResponse>`;
const byIds = (...ids: string[]): URLSearchParams => new URLSearchParams([['Action', 'DescribeInstances'], ...ids.map((id, i): [string, string] => [`InstanceId.${String(i + 1)}`, id])]);

void t.test('an instance launched under a lag is unknown by id and absent from lists until the lag passed', (t) => {
  const v = new LaunchVisibility();
  v.setLag(10_000);
  v.noteLaunch(fleetReply(['i-new1', 'i-new2']), 1_000);
  t.same(v.unknownIds(byIds('i-old', 'i-new2'), 5_000), ['i-new2'], 'asked by id, it is unknown');
  t.equal(v.filterAnswer(describeReply(['i-old', 'i-new1']), 5_000), describeReply(['i-old']), 'listed, only its reservation is left out');
  t.same(v.unknownIds(byIds('i-new1'), 11_000), [], 'once the lag has passed it is seen');
  t.equal(v.filterAnswer(describeReply(['i-old', 'i-new1']), 11_000), describeReply(['i-old', 'i-new1']));
  t.end();
});

void t.test('without a lag nothing is hidden', (t) => {
  const v = new LaunchVisibility();
  v.noteLaunch(fleetReply(['i-new']), 1_000);
  t.same(v.unknownIds(byIds('i-new'), 1_001), []);
  t.equal(v.filterAnswer(describeReply(['i-new']), 1_001), describeReply(['i-new']));
  t.end();
});
