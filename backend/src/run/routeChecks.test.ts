import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { checkQuickack, type RouteEntry } from './routeChecks.js';

function planOf(quickack: boolean | undefined) {
  const v = validateSpec({
    name: 't',
    duration: '10s',
    paths: { main: { rtt: '10ms', rate: '50Mbit', ...(quickack === undefined ? {} : { quickack }) } },
    flows: [{ stack: 'cubic' }, { stack: 'reno', rtt: '70ms' }],
  });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return { spec: v.spec, paths: buildPlan(v.spec).topology.paths };
}

/** Routes as `ip -j route show` prints them (iproute2 6.1): quickack under `metrics`. */
const route = (quick: boolean): RouteEntry[] => [
  { dst: 'default', gateway: '10.1.1.1', dev: 'eth0', ...(quick ? { metrics: [{ quickack: 1 }] } : {}) },
  { dst: '10.1.1.0/24', dev: 'eth0' },
];
const hosts = ['lfn-p0-snd', 'lfn-p0-rcv', 'lfn-p0g1-snd', 'lfn-p0g1-rcv'];
const routesWith = (quick: (ns: string) => boolean) =>
  Object.fromEntries(hosts.map((ns) => [ns, route(quick(ns))]));

describe('quickack check', () => {
  it('passes when every end host of the path, its host groups included, has quickack 1', () => {
    const { spec, paths } = planOf(true);
    const c = checkQuickack(
      spec,
      paths,
      routesWith(() => true),
    );
    expect(c).toMatchObject({ id: 'quickack', status: 'pass', measured: 0 });
    expect(c?.message).toMatch(/on 4 end hosts/);
  });

  it('fails and names the host whose route kept delayed ACKs', () => {
    const { spec, paths } = planOf(true);
    const c = checkQuickack(
      spec,
      paths,
      routesWith((ns) => ns !== 'lfn-p0g1-rcv'),
    );
    expect(c).toMatchObject({ status: 'fail', measured: 1 });
    expect(c?.message).toMatch(/lfn-p0g1-rcv delayed ACKs \(spec quickack\)/);
  });

  it('fails when a host has quickack the spec did not ask for, or no default route', () => {
    const { spec, paths } = planOf(false);
    const routes = routesWith((ns) => ns === 'lfn-p0-snd');
    routes['lfn-p0-rcv'] = [];
    const c = checkQuickack(spec, paths, routes);
    expect(c?.status).toBe('fail');
    expect(c?.message).toMatch(/lfn-p0-snd quickack 1 \(spec delayed ACKs\)/);
    expect(c?.message).toMatch(/lfn-p0-rcv has no default route/);
  });

  it('is absent when nobody asks and nobody has it, or when the routes were not read', () => {
    const { spec, paths } = planOf(undefined);
    expect(
      checkQuickack(
        spec,
        paths,
        routesWith(() => false),
      ),
    ).toBeNull();
    expect(checkQuickack(planOf(true).spec, paths, undefined)).toBeNull();
  });
});
