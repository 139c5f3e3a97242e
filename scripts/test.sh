#!/usr/bin/env bash
# Every lfnlab test: installs what is missing first (scripts/setup.sh --no-demo runs
# apt-get update and apt-get install when a Debian package is missing), then runs the unit
# tests and the real-lab tests (the lab image booted under qemu, KVM where it works, else TCG).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --no-demo
npm test
