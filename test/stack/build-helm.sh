#!/usr/bin/env bash
# Builds Helm from its Go module (helm.sh/helm/v4) and caches it by version outside the repository,
# beside the Kubernetes binaries of build-stack.sh, so a second run is free.
# Helm 4 because Helm 3 reached the end of its security-fix window in November 2026.
# Prints the path of the helm binary on its last line.
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v4.3.1}"
# The same cache root as build-stack.sh (NODESMITH_CACHE overrides it).
BIN="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}/helm-${HELM_VERSION}/bin"
log() { printf '[build-helm] %s\n' "$*" >&2; }

if [ -x "$BIN/helm" ]; then
  log "helm ${HELM_VERSION}: cached"
else
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
  log "helm ${HELM_VERSION}: building in $dir"
  start=$(date +%s)
  mkdir -p "$BIN"
  (
    cd "$dir"
    export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local
    go mod init nodesmith.local/build-helm >/dev/null 2>&1
    # A main package cannot be imported, so only require its module; -mod=mod fills the rest.
    go get "helm.sh/helm/v4@${HELM_VERSION}" >/dev/null
    # A name of its own per build: test files that need helm start this script side by side on a machine with none
    # cached, and a shared helm.tmp was moved away under the other build ("mv: cannot stat .../helm.tmp").
    # The version Helm reports (helm version) is stamped at link time, as its Makefile does.
    go build -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}" \
      -o "$BIN/helm.tmp.$$" helm.sh/helm/v4/cmd/helm
    mv "$BIN/helm.tmp.$$" "$BIN/helm"
  )
  log "helm ${HELM_VERSION}: built in $(( $(date +%s) - start ))s"
fi
echo "$BIN/helm"
