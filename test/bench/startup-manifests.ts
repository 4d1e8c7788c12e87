// The manifests the start-up bench feeds the CLI: one small NodePool, and a plan input with 50 pods.
const nodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand", "spot"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
  limits:
    cpu: 1000
`;

const nodeClass = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags: { karpenter.sh/discovery: demo }
  securityGroupSelectorTerms:
    - tags: { karpenter.sh/discovery: demo }
`;

function deployment(name: string, replicas: number, cpu: string, memory: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${String(replicas)}
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          resources: { requests: { cpu: ${cpu}, memory: ${memory} } }
`;
}

/** YAML texts: `nodePool` (one NodePool) and `plan` (NodePool, EC2NodeClass and 50 pods in 3 Deployments). */
export function startupManifests(): { nodePool: string; plan: string } {
  const workloads = [deployment('web', 30, '500m', '1Gi'), deployment('api', 15, '1', '2Gi'), deployment('batch', 5, '2', '8Gi')];
  return { nodePool, plan: [nodePool, nodeClass, ...workloads].join('---\n') };
}
