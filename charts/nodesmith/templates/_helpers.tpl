{{/* Names. With the release called "nodesmith" (as manifests/ is rendered) every object keeps its plain name. */}}
{{- define "nodesmith.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "nodesmith.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "nodesmith.serviceAccountName" -}}
{{- default (include "nodesmith.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{/* The controller's username: the only one the binding guard lets bind pods to virtual nodes. */}}
{{- define "nodesmith.productUser" -}}
system:serviceaccount:{{ .Release.Namespace }}:{{ include "nodesmith.serviceAccountName" . }}
{{- end }}

{{- define "nodesmith.webhooksName" -}}
{{ include "nodesmith.fullname" . }}-webhooks
{{- end }}

{{- define "nodesmith.webhookSecretName" -}}
{{- default (printf "%s-tls" (include "nodesmith.webhooksName" .)) .Values.webhooks.certificate.secretName }}
{{- end }}

{{- define "nodesmith.extenderName" -}}
{{ include "nodesmith.fullname" . }}-extender
{{- end }}

{{/* Namespaces the pod webhooks skip: the configured ones plus the release's own. */}}
{{- define "nodesmith.excludedNamespaces" -}}
{{- $list := concat .Values.webhooks.excludedNamespaces (list .Release.Namespace) | uniq }}
{{- join "," $list }}
{{- end }}

{{/*
What adds the launchable toleration to new pods: "policy" (a MutatingAdmissionPolicy, evaluated inside the API
server, admissionregistration.k8s.io/v1 from Kubernetes 1.36) or "webhook" (a round trip to nodesmith's webhook
server in every pod create). "auto" picks the policy where the cluster serves its API.
*/}}
{{- define "nodesmith.launchableTolerationBy" -}}
{{- $by := .Values.webhooks.launchableToleration }}
{{- if eq $by "auto" }}
{{- if .Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy" }}policy{{ else }}webhook{{ end }}
{{- else if or (eq $by "policy") (eq $by "webhook") }}
{{- $by }}
{{- else }}
{{- fail (printf "webhooks.launchableToleration must be auto, policy or webhook; got %q" $by) }}
{{- end }}
{{- end }}

{{- define "nodesmith.labels" -}}
app.kubernetes.io/part-of: {{ include "nodesmith.name" . }}
{{- if .Values.chartLabels }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}
{{- end }}

{{- define "nodesmith.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/* The pod and container hardening every nodesmith pod shares. */}}
{{- define "nodesmith.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
seccompProfile: { type: RuntimeDefault }
{{- end }}

{{- define "nodesmith.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities: { drop: [ALL] }
{{- end }}

{{/* The extender entry of a KubeSchedulerConfiguration; dict: root, urlPrefix, ignorable. */}}
{{- define "nodesmith.extenderEntry" -}}
{{- $s := .root.Values.scheduler.extender -}}
- urlPrefix: {{ .urlPrefix }}
  filterVerb: filter
  prioritizeVerb: prioritize
  bindVerb: bind
  # Scores 0–10 are multiplied by weight × 10: up to 500 against the default plugins' few hundred, so packing
  # and price decide among nodes that kube-scheduler scores alike. (Filter already keeps virtual nodes away
  # from any pod a real node takes, so the weight never has to beat a real-vs-virtual comparison.)
  weight: {{ $s.weight }}
  # Only node names go over the wire; the extender keeps its own informer-fed view of nodes and pods.
  nodeCacheCapable: true
  # One timeout for every verb: a bind to a virtual node waits for the EC2 launch and the Node object.
  # Filter and prioritize answer from memory in well under a millisecond, so only a hung extender would
  # ever use this much of it on them.
  httpTimeout: {{ $s.httpTimeout }}
  ignorable: {{ .ignorable }}
  {{- if $s.https }}
  enableHTTPS: true
  tlsConfig:
    caData: {{ $s.caData | quote }}
  {{- end }}
  # Unset managedResources: the extender is interested in every pod (it must bind every pod it filters).
{{- end }}

{{- define "nodesmith.webhookDnsNames" -}}
{{- $svc := include "nodesmith.webhooksName" . }}
{{- $ns := .Release.Namespace }}
{{- toYaml (concat (list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns)) .Values.webhooks.certificate.dnsNames) }}
{{- end }}

{{/*
The webhooks' CA and serving certificate in generate mode, as Secret data (base64). An existing Secret wins, so
upgrades keep the CA the webhook configurations trust. Helm renders each template separately, so a certificate
made here is cached in .Values (per render) for the webhook configurations' caBundle to see the same CA.
*/}}
{{- define "nodesmith.generatedCertificate" -}}
{{- $cache := .Values.webhooks.certificate }}
{{- if not (hasKey $cache "_generated") }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "nodesmith.webhookSecretName" .) }}
{{- if and $existing $existing.data (hasKey $existing.data "ca.crt") }}
{{- $_ := set $cache "_generated" (dict "ca.crt" (index $existing.data "ca.crt") "tls.crt" (index $existing.data "tls.crt") "tls.key" (index $existing.data "tls.key")) }}
{{- else }}
{{- $days := int $cache.validityDays }}
{{- $ca := genCA (printf "%s-ca" (include "nodesmith.webhooksName" .)) $days }}
{{- $dns := include "nodesmith.webhookDnsNames" . | fromYamlArray }}
{{- $serving := genSignedCert (include "nodesmith.webhooksName" .) $cache.ipAddresses $dns $days $ca }}
{{- $_ := set $cache "_generated" (dict "ca.crt" ($ca.Cert | b64enc) "tls.crt" ($serving.Cert | b64enc) "tls.key" ($serving.Key | b64enc)) }}
{{- end }}
{{- end }}
{{- toYaml $cache._generated }}
{{- end }}

{{/* caBundle of every webhook: the generated CA, or empty (cert-manager injects it; external fills it). */}}
{{- define "nodesmith.caBundle" -}}
{{- if eq .Values.webhooks.certificate.mode "generate" }}
{{- index (include "nodesmith.generatedCertificate" . | fromYaml) "ca.crt" }}
{{- end }}
{{- end }}

{{/* clientConfig of one webhook; dict: root, path. */}}
{{- define "nodesmith.webhookClientConfig" -}}
{{- $w := .root.Values.webhooks }}
{{- if $w.url -}}
url: {{ printf "%s%s" (trimSuffix "/" $w.url) .path }}
{{- else -}}
service: { name: {{ include "nodesmith.webhooksName" .root }}, namespace: {{ .root.Release.Namespace }}, path: {{ .path }}, port: 443 }
{{- end }}
caBundle: {{ include "nodesmith.caBundle" .root | quote }}
{{- end }}

{{- define "nodesmith.webhookAnnotations" -}}
{{- if eq .Values.webhooks.certificate.mode "certManager" }}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include "nodesmith.webhooksName" . }}
{{- end }}
{{- end }}

{{/* The controller pods' selector labels: the Deployment's, the PDB's and the default anti-affinity's. */}}
{{- define "nodesmith.controllerSelector" -}}
app.kubernetes.io/name: {{ include "nodesmith.fullname" . }}
{{- end }}

{{/*
Affinity with the controller pods' selector filled into each pod (anti-)affinity term that names none (as
Karpenter's chart does), so the default keeps the replicas apart whatever the release is called. dict: root, affinity.
*/}}
{{- define "nodesmith.controllerAffinity" -}}
{{- $affinity := deepCopy .affinity }}
{{- $selector := dict "matchLabels" (include "nodesmith.controllerSelector" .root | fromYaml) }}
{{- range $kind := list "podAffinity" "podAntiAffinity" }}
{{- $rules := index $affinity $kind | default dict }}
{{- range $term := index $rules "requiredDuringSchedulingIgnoredDuringExecution" | default list }}
{{- if not (hasKey $term "labelSelector") }}{{- $_ := set $term "labelSelector" $selector }}{{- end }}
{{- end }}
{{- range $weighted := index $rules "preferredDuringSchedulingIgnoredDuringExecution" | default list }}
{{- if not (hasKey $weighted.podAffinityTerm "labelSelector") }}{{- $_ := set $weighted.podAffinityTerm "labelSelector" $selector }}{{- end }}
{{- end }}
{{- end }}
{{- toYaml $affinity }}
{{- end }}

{{/* Topology spread constraints, each without a labelSelector given the controller pods' selector. dict: root, constraints. */}}
{{- define "nodesmith.controllerSpread" -}}
{{- $constraints := deepCopy .constraints }}
{{- $selector := dict "matchLabels" (include "nodesmith.controllerSelector" .root | fromYaml) }}
{{- range $constraint := $constraints }}
{{- if not (hasKey $constraint "labelSelector") }}{{- $_ := set $constraint "labelSelector" $selector }}{{- end }}
{{- end }}
{{- toYaml $constraints }}
{{- end }}

{{/*
The schedulers whose untried pods are planned early: "auto" is the one this chart makes call the extender (the
second scheduler when it is enabled, else the cluster's default-scheduler through the drop-in configuration).
*/}}
{{- define "nodesmith.earlyPlanningSchedulers" -}}
{{- $value := .Values.settings.earlyPlanningSchedulers | default "none" -}}
{{- if eq $value "auto" -}}
{{- if .Values.scheduler.secondScheduler.enabled -}}{{ .Values.scheduler.secondScheduler.name }}{{- else -}}default-scheduler{{- end -}}
{{- else -}}
{{ $value }}
{{- end -}}
{{- end -}}
