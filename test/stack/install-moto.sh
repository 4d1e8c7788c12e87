#!/usr/bin/env bash
# Installs moto's server from PyPI into a virtualenv in the project's ignored cache folder.
set -euo pipefail
MOTO_VERSION="${MOTO_VERSION:-5.2.5}"
here="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$here/.cache/venv"
if [ -x "$venv/bin/moto_server" ] && "$venv/bin/python" -c "import moto,sys; sys.exit(moto.__version__ != '$MOTO_VERSION')" 2>/dev/null; then
  echo "[install-moto] moto ${MOTO_VERSION}: cached" >&2; exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==${MOTO_VERSION}"
echo "[install-moto] moto ${MOTO_VERSION}: installed in $venv" >&2
