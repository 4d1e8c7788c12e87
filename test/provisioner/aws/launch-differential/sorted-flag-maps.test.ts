import t from 'tap';
import { sortedFlagMaps } from './shapes.js';

void t.test("map-valued kubelet flags compare in one order, since Karpenter joins them in Go's random map order", (t) => {
  const karpenter = `-KubeletExtraArgs '--max-pods=110 --eviction-hard="nodefs.inodesFree<10%,memory.available<5%,nodefs.available<10%"'`;
  const nodesmith = `-KubeletExtraArgs '--max-pods=110 --eviction-hard="memory.available<5%,nodefs.available<10%,nodefs.inodesFree<10%"'`;
  t.equal(sortedFlagMaps(karpenter), sortedFlagMaps(nodesmith));
  t.not(sortedFlagMaps(`--kube-reserved="cpu=200m,memory=200Mi"`), sortedFlagMaps(`--kube-reserved="cpu=300m,memory=200Mi"`), 'a different value still differs');
  t.equal(sortedFlagMaps(`--max-pods=110 --cluster-dns="10.100.0.10"`), `--max-pods=110 --cluster-dns="10.100.0.10"`, 'flags that are not maps are left alone');
  t.end();
});
