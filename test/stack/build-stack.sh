#!/usr/bin/env bash
# Builds the real components of the local test stack from their Go modules and caches them by
# version outside the repository, so a second run (and every CI run on the same machine) is free.
#   kube-apiserver, kube-controller-manager, kube-scheduler, kubectl  <- k8s.io/kubernetes
#   etcd                                                              <- go.etcd.io/etcd/server/v3
#   kwok                                                              <- sigs.k8s.io/kwok
# Prints the bin directory on its last line.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.8}"   # the etcd release k8s.io/kubernetes ${K8S_VERSION} itself requires
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
BIN="$CACHE_ROOT/stack/k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}/bin"
mkdir -p "$BIN"
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOTOOLCHAIN=local

log() { printf '[build-stack] %s\n' "$*" >&2; }

# A throwaway module per component: the upstream go.mod files use local `replace` lines, which
# `go install pkg@version` refuses, so we depend on them as a library instead.
new_module() {
  local dir; dir="$(mktemp -d)"
  (cd "$dir" && go mod init "nodesmith.local/build" >/dev/null 2>&1)
  printf '%s' "$dir"
}

build_kubernetes() {
  local want=(kube-apiserver kube-controller-manager kube-scheduler kubectl) missing=0
  for b in "${want[@]}"; do [ -x "$BIN/$b" ] || missing=1; done
  [ "$missing" = 1 ] || { log "kubernetes ${K8S_VERSION}: cached"; return; }
  local dir; dir="$(new_module)"
  log "kubernetes ${K8S_VERSION}: resolving modules in $dir"
  local minor="v0.${K8S_VERSION#v1.}"
  (
    cd "$dir"
    go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" >/dev/null
    local gomod; gomod="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/${K8S_VERSION}.mod"
    # k8s.io/kubernetes replaces its staging modules with local paths; point each at the
    # published v0.x.y that matches this release.
    { echo "require k8s.io/kubernetes ${K8S_VERSION}"; echo "replace ("
      sed -n 's#^\t\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\t\1 => \1 '"$minor"'#p' "$gomod"
      echo ")"; } >> go.mod
    printf 'package main\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\nfunc main() {}\n' > tools.go
    go mod tidy >/dev/null
    local major="${K8S_VERSION#v}"; major="${major%%.*}"
    local minornum="${K8S_VERSION#v*.}"; minornum="${minornum%%.*}"
    local ld="-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=${major} -X k8s.io/component-base/version.gitMinor=${minornum} -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=${K8S_VERSION}"
    for b in "${want[@]}"; do
      [ -x "$BIN/$b" ] && continue
      log "kubernetes ${K8S_VERSION}: building $b"
      go get "k8s.io/kubernetes/cmd/$b" >/dev/null 2>&1 || true
      go build -trimpath -ldflags "$ld" -o "$BIN/$b.tmp" "k8s.io/kubernetes/cmd/$b"
      mv "$BIN/$b.tmp" "$BIN/$b"
    done
  )
  rm -rf "$dir"
}

build_single() { # name module package version
  local name="$1" module="$2" pkg="$3" version="$4"
  [ -x "$BIN/$name" ] && { log "$name ${version}: cached"; return; }
  local dir; dir="$(new_module)"
  log "$name ${version}: building"
  (
    cd "$dir"
    # A main package cannot be imported, so only require its module; -mod=mod fills the rest.
    go get "${module}@${version}" >/dev/null
    go build -trimpath -ldflags "-s -w" -o "$BIN/$name.tmp" "$pkg"
    mv "$BIN/$name.tmp" "$BIN/$name"
  )
  rm -rf "$dir"
}

start=$(date +%s)
build_single etcd go.etcd.io/etcd/server/v3 go.etcd.io/etcd/server/v3 "$ETCD_VERSION"
build_single kwok sigs.k8s.io/kwok sigs.k8s.io/kwok/cmd/kwok "$KWOK_VERSION"
build_kubernetes
log "done in $(( $(date +%s) - start ))s"
echo "$BIN"
