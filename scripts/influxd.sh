#!/usr/bin/env bash
# A local InfluxDB (1.x, v1 API) for lfnlab, on the loopback interface only, without systemd.
#   bash scripts/influxd.sh          start it (nothing to do if /ping already answers), print its URL
#   bash scripts/influxd.sh stop     stop the one this script started (its pid file)
#   bash scripts/influxd.sh status   print the URL if /ping answers, else exit 1
# Environment:
#   LFNLAB_INFLUX_PORT      HTTP port (default 8086); the RPC (backup) port is LFNLAB_INFLUX_RPC_PORT,
#                           default HTTP port + 2
#   LFNLAB_INFLUX_DIR       data, config, log and pid file (default /var/lib/lfnlab/influxdb)
#   LFNLAB_INFLUX_WAIT_S    how long to wait for /ping after starting (default 30)
# Debian 12: apt-get install -y influxdb influxdb-client (InfluxDB 1.6.7). The package's own
# service listens on every interface (:8086) where systemd runs it; this script never uses it.
set -euo pipefail

port="${LFNLAB_INFLUX_PORT:-8086}"
rpc_port="${LFNLAB_INFLUX_RPC_PORT:-$((port + 2))}"
dir="$(realpath -m -- "${LFNLAB_INFLUX_DIR:-/var/lib/lfnlab/influxdb}")"
wait_s="${LFNLAB_INFLUX_WAIT_S:-30}"
url="http://127.0.0.1:${port}"
pidfile="${dir}/influxd.pid"
log="${dir}/influxd.log"
conf="${dir}/influxd.conf"

die() { echo "influxd.sh: $*" >&2; exit 1; }

for v in port rpc_port wait_s; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v must be a number (got '${!v}')"
done

# /ping answers 204 when InfluxDB is up.
ping_ok() {
  if command -v curl >/dev/null; then
    curl -fsS -o /dev/null --max-time 2 "${url}/ping" 2>/dev/null
  elif command -v wget >/dev/null; then
    wget -q -O /dev/null -T 2 "${url}/ping" 2>/dev/null
  else
    # bash's /dev/tcp: a bare HTTP request, success on a 2xx status line.
    local status
    status=$(
      exec 3<>"/dev/tcp/127.0.0.1/${port}" || exit 1
      printf 'GET /ping HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
      head -n1 <&3
    ) 2>/dev/null || return 1
    [[ "$status" =~ ^HTTP/[0-9.]+\ 2[0-9][0-9] ]]
  fi
}

our_pid() {
  [ -f "$pidfile" ] || return 1
  local pid
  pid=$(cat "$pidfile")
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && [ "$(cat "/proc/${pid}/comm" 2>/dev/null)" = influxd ] || return 1
  echo "$pid"
}

case "${1:-start}" in
  status)
    ping_ok || die "nothing answers ${url}/ping"
    echo "$url"
    exit 0
    ;;
  stop)
    pid=$(our_pid) || die "no influxd started by this script is running (pid file ${pidfile})"
    kill -TERM "$pid"
    for _ in $(seq 1 $((wait_s * 10))); do
      kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; echo "stopped influxd (pid ${pid})"; exit 0; }
      sleep 0.1
    done
    die "influxd (pid ${pid}) did not stop within ${wait_s} s"
    ;;
  start) ;;
  *) die "usage: influxd.sh [start|stop|status]" ;;
esac

if ping_ok; then
  echo "$url"
  exit 0
fi

command -v influxd >/dev/null || die "influxd is not installed: apt-get install -y influxdb influxdb-client"
influxd version 2>/dev/null | grep -q 'InfluxDB v\?1\.' || die "$(command -v influxd) is not InfluxDB 1.x (this script writes a 1.x configuration)"
if pid=$(our_pid); then
  die "influxd (pid ${pid}) is running but ${url}/ping does not answer; see ${log}"
fi

mkdir -p "${dir}/meta" "${dir}/data" "${dir}/wal" || die "cannot create ${dir} (set LFNLAB_INFLUX_DIR to a writable directory)"
# Every listener is spelled out on 127.0.0.1: influxd's own default for HTTP is every interface.
cat >"$conf" <<EOF
# written by lfnlab's scripts/influxd.sh: loopback only
reporting-disabled = true
reporting-enabled = false
bind-address = "127.0.0.1:${rpc_port}"
[meta]
  dir = "${dir}/meta"
[data]
  dir = "${dir}/data"
  wal-dir = "${dir}/wal"
  wal-fsync-delay = "0s"
  query-log-enabled = false
[monitor]
  store-enabled = false
[http]
  bind-address = "127.0.0.1:${port}"
  log-enabled = false
[logging]
  suppress-logo = true
EOF

# INFLUXDB_* variables override the configuration (a listener's address among them): drop them.
mapfile -t overrides < <(compgen -e | grep '^INFLUXDB_' || true)
for v in "${overrides[@]}"; do unset "$v"; done

# Detached from this shell (its own session), so it outlives the terminal that started it.
setsid influxd run -config "$conf" -pidfile "$pidfile" </dev/null >>"$log" 2>&1 &
pid=$!

for _ in $(seq 1 $((wait_s * 10))); do
  if ping_ok; then
    echo "$url"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || { tail -n 15 "$log" >&2; die "influxd exited before answering ${url}/ping (log: ${log})"; }
  sleep 0.1
done
tail -n 15 "$log" >&2
die "influxd (pid ${pid}) did not answer ${url}/ping within ${wait_s} s (log: ${log})"
