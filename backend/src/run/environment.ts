// Everything about the lab a result depends on, read from the lab itself: kernel, module hashes
// and parameters, sysctls, offloads, tool versions.
import type { Cmd } from '@lfnlab/emulator';

export const TOOL_VERSION_CMDS: Cmd[] = [
  { argv: ['iperf3', '--version'] },
  { argv: ['ip', '-V'] },
  { argv: ['tc', '-V'] },
  { argv: ['ss', '-V'] },
  { argv: ['ethtool', '--version'] },
  { argv: ['ping', '-V'] },
  { argv: ['kmod', '--version'] },
  { argv: ['busybox'] },
];

export function toolVersions(
  results: { argv: string[]; stdout: string; stderr: string }[],
): Record<string, string> {
  return Object.fromEntries(
    results.map((r) => [r.argv[0] ?? '', (r.stdout || r.stderr).split('\n')[0]?.trim() ?? '']),
  );
}

/** `sysctl -a` → key/value pairs. */
export function parseSysctl(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(' = ');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 3).trim();
  }
  return out;
}

/** `ethtool -k dev` → feature → on/off (with "[fixed]" kept, it matters when a change is refused). */
export function parseOffloads(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n').slice(1)) {
    const m = /^\s*([a-z0-9-]+):\s+(.+)$/.exec(line);
    if (m?.[1] && m[2]) out[m[1]] = m[2].trim();
  }
  return out;
}

/** The TCP sysctls worth reading at a glance; the full `sysctl -a` is kept beside them. */
export const KEY_SYSCTLS = [
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
  'net.ipv4.tcp_congestion_control',
  'net.ipv4.tcp_no_metrics_save',
  'net.ipv4.tcp_ecn',
  'net.ipv4.tcp_sack',
  'net.ipv4.tcp_timestamps',
  'net.ipv4.tcp_window_scaling',
  'net.ipv4.tcp_adv_win_scale',
  'net.ipv4.tcp_slow_start_after_idle',
  'net.ipv4.tcp_autocorking',
  'net.ipv4.ip_forward',
];
