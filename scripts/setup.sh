#!/usr/bin/env bash
# lfnlab set-up for a fresh Debian 12 machine, as root: Debian packages, Node packages, the build,
# the lab image (kernel from Debian's packages, cached), then a demo experiment in the lab.
#   bash scripts/setup.sh            everything, ending with the demo run
#   bash scripts/setup.sh --no-demo  everything but the demo (what the tests use)
# Idempotent: a second run installs nothing and finds the image in the cache.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=1
[ "${1:-}" = "--no-demo" ] && demo=0

say() { printf '\n== %s\n' "$*"; }
[ "$(id -u)" = 0 ] || { echo "setup.sh: run as root (the lab needs qemu, and apt-get installs packages)" >&2; exit 1; }

# Debian packages: qemu and the tools the image carries (copied from this host's Debian packages),
# InfluxDB 1.6 for samples, Chromium for the web UI's end-to-end tests, and Python's venv for the
# API fuzz test (schemathesis from PyPI in a throwaway venv), and redis-server for `lfnlab serve
# --queue redis://…` and the Redis queue's tests (which start their own on a loopback port); GRUB
# (BIOS and UEFI), xorriso and mtools write the lab PC ISO (`lfnlab lab iso`), OVMF boots it under
# UEFI in its test.
PKGS=(qemu-system-x86 iperf3 iproute2 ethtool iputils-ping busybox-static kmod cpio tcpdump util-linux make gcc g++
      libc6-dev libudt-dev influxdb influxdb-client ca-certificates git curl
      chromium fonts-dejavu-core python3 python3-venv redis-server
      grub-pc-bin grub-efi-amd64-bin xorriso mtools ovmf)
command -v go >/dev/null || PKGS+=(golang-go)
missing=()
for p in "${PKGS[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
node_ok() { command -v node >/dev/null && node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)'; }
node_ok || { command -v npm >/dev/null || missing+=(nodejs npm); }
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  apt-get update
  # Packages must not start services: Debian's influxdb would listen on every interface. lfnlab
  # starts its own influxd on loopback (scripts/influxd.sh) and tests start throwaway ones.
  own_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && own_policy=1
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
  if [ "$own_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; trap - EXIT; fi
  # Debian enables redis-server's unit for the next boot; lfnlab starts Redis only when asked to.
  if [[ " ${missing[*]} " == *" redis-server "* ]] && command -v systemctl >/dev/null; then
    systemctl disable redis-server >/dev/null 2>&1 || true
  fi
fi
if ! node_ok; then
  # Debian 12's nodejs is 18; the npm registry's node package ships a real Node 22 binary.
  say "installing Node 22 from the npm registry (Debian's Node $(node --version 2>/dev/null) is too old)"
  npm install -g node@22
  hash -r
fi

say "Node packages"
# npm install, not npm ci: with this lock file npm ci insists on optional platform binaries of
# biome that npm never records for other platforms; install still takes the locked versions.
npm install --no-audit --no-fund

say "build"
npm run build
npm run build -w frontend

say "lab kernel and its headers"
node backend/bin/lfnlab.js kernel fetch --headers

say "lab image (kernel $(node -p 'require("./kernels/manifest.json").abi'))"
node backend/bin/lfnlab.js image build

if [ "$demo" = 1 ]; then
  say "InfluxDB on loopback (samples for Grafana and the UI's history)"
  bash scripts/influxd.sh
  say "booting the lab"
  node backend/bin/lfnlab.js lab up
  say "demo experiment: examples/demo.yaml"
  node backend/bin/lfnlab.js run examples/demo.yaml
  node backend/bin/lfnlab.js reindex runs/ >/dev/null || echo "(reindex into InfluxDB failed; the run directories are intact)"

  say "web UI and API"
  data="${XDG_DATA_HOME:-$HOME/.local/share}/lfnlab"
  if [ -f "$data/serve.pid" ] && kill -0 "$(cat "$data/serve.pid")" 2>/dev/null; then
    kill "$(cat "$data/serve.pid")"
    while kill -0 "$(cat "$data/serve.pid")" 2>/dev/null; do sleep 0.2; done
  fi
  node backend/bin/lfnlab.js serve --daemon --host "${LFNLAB_HOST:-127.0.0.1}" --port "${LFNLAB_PORT:-8080}"
  cat <<MSG

Done. Open http://${LFNLAB_HOST:-127.0.0.1}:${LFNLAB_PORT:-8080}/ and sign in as admin; the password is in
$data/admin-password. The seed papers' experiments are under "Paper presets": pick one and press "Run it".
The lab stays booted ('npx lfnlab lab status'); the service logs to $data/serve.log.
From the command line: npx lfnlab run examples/reno-vs-cubic.yaml  (see examples/, and --dry-run)
MSG
fi
