#!/usr/bin/env bash
# The ProvisioningRequest CRD (autoscaling.x-k8s.io, Cluster Autoscaler's API) is not ours to write: it ships in
# the autoscaler's API module, k8s.io/autoscaler/cluster-autoscaler/apis, under config/crd/. This fetches that
# module at the version Kueue requires (the batch user's controller that creates the requests; issue 35) and
# copies the file, unchanged, to where nodesmith ships its CRDs: manifests/crds/ and the Helm chart's crds/.
#   sync (default)  copy the CRD into the repository
#   dir             print the module's directory (test/stack/provisioningrequest-crd.test.ts compares against it)
# Prints the module directory on its last line either way.
set -euo pipefail

KUEUE_VERSION="${KUEUE_VERSION:-v0.17.0}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$HERE/../.."
CRD=config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml
export GOFLAGS="-mod=mod" GOTOOLCHAIN=auto

# The version pin: whatever Kueue's go.mod requires, so the CRD is the one Kueue's admission check was built against.
kueue_gomod="$(cd / && go mod download -json "sigs.k8s.io/kueue@${KUEUE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
APIS_VERSION="${AUTOSCALER_APIS_VERSION:-$(sed -n 's#^\tk8s.io/autoscaler/cluster-autoscaler/apis \(v[^ ]*\).*#\1#p' "$kueue_gomod")}"
[ -n "$APIS_VERSION" ] || { echo "kueue ${KUEUE_VERSION}'s go.mod names no k8s.io/autoscaler/cluster-autoscaler/apis" >&2; exit 1; }
dir="$(cd / && go mod download -json "k8s.io/autoscaler/cluster-autoscaler/apis@${APIS_VERSION}" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
[ -f "$dir/$CRD" ] || { echo "no $CRD in k8s.io/autoscaler/cluster-autoscaler/apis@${APIS_VERSION}" >&2; exit 1; }

case "${1:-sync}" in
  sync)
    for out in manifests/crds charts/nodesmith/crds; do
      install -m 0644 "$dir/$CRD" "$REPO/$out/$(basename "$CRD")"
    done
    printf '[provisioningrequest-crd] copied from k8s.io/autoscaler/cluster-autoscaler/apis@%s (Kueue %s)\n' "$APIS_VERSION" "$KUEUE_VERSION" >&2 ;;
  dir) ;;
  *) echo "usage: $0 [sync|dir]" >&2; exit 2 ;;
esac
echo "$dir"
