/** The value sets the golden `helm template` tests render; each names what it proves. */
export const goldenValueSets: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // The defaults a new user gets: in-process extender, webhooks with a Helm-generated certificate, drop-in config.
  defaults: { 'settings.clusterName': 'my-cluster' },
  // cert-manager makes the serving certificate from its own self-signed CA; cainjector fills caBundle.
  'cert-manager': { 'settings.clusterName': 'my-cluster', 'webhooks.certificate.mode': 'certManager' },
  // A second scheduler over HTTPS to the extender, and the standalone extender in front of it.
  'second-scheduler-https': {
    'settings.clusterName': 'my-cluster',
    'scheduler.dropIn.enabled': 'false',
    'scheduler.secondScheduler.enabled': 'true',
    'scheduler.extender.https': 'true',
    'scheduler.extender.caData': 'Q0EgUEVN',
    'controller.extenderTlsSecretName': 'nodesmith-extender-tls',
    'controller.components': '{provisioner}',
    'extender.standalone.enabled': 'true',
    'extender.standalone.tlsSecretName': 'nodesmith-extender-tls',
    'webhooks.certificate.mode': 'external',
  },
  // Every setting given, for a release whose name differs from the chart's; the webhooks run in-process.
  'every-setting': {
    'settings.clusterName': 'prod',
    'settings.clusterEndpoint': 'https://prod.example.com',
    'settings.clusterCABundle': 'Q0E=',
    'settings.serviceCIDR': '172.20.0.0/16',
    'settings.kubernetesVersion': '1.35',
    'settings.region': 'eu-west-1',
    'settings.ec2Endpoint': 'https://ec2.example.com',
    'settings.amiParameterPrefix': '/test/ami',
    'settings.interruptionQueue': 'nodesmith-interruptions',
    'settings.spotPrices': 'api',
    'settings.spotPriceRefresh': '10m',
    'settings.zones': '{eu-west-1a,eu-west-1b}',
    'settings.batchIdleDuration': '2s',
    'settings.batchMaxDuration': '20s',
    'settings.driftRecheckInterval': '10m',
    'settings.consolidationMinSavings': '10%',
    'settings.featureGates': 'SpotToSpotConsolidation=true',
    'settings.logLevel': 'debug',
    'settings.metricsNamespace': 'karpenter',
    'controller.components': '{provisioner,extender,webhooks}',
    'controller.extenderTlsSecretName': 'extender-tls',
    'controller.healthPort': '8081',
    'image.repository': 'registry.example.com/nodesmith',
    'image.digest': 'sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
    'serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn': 'arn:aws:iam::111122223333:role/nodesmith',
  },
};
