// A dumbbell per path: senders on the left, the router's bottleneck in the middle, receivers on
// the right, one line per flow in its chart colour (arrow by direction), UDP sources dashed. As a
// bump in the wire the lab's two ports take the routers' places and the ends are external hosts.
import { Paper, Title } from '@mantine/core';
import { stackColor } from '../lib/colors';
import type { SpecForm } from './formModel';

const W = 360;
const ROW = 22;

export function TopologySketch({ form }: { form: SpecForm }) {
  const blocks = form.paths.map((p) => {
    const flows = form.flows.map((f, i) => ({ f, i })).filter(({ f }) => f.path === p.name);
    const lines = flows.length + p.cross.length;
    return { p, flows, height: Math.max(90, 40 + lines * ROW) };
  });
  const total = blocks.reduce((h, b) => h + b.height + 10, 0);
  const wire = form.wire.on ? form.wire : null;
  let y0 = 0;
  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h5" mb="xs">
        Topology
      </Title>
      <svg
        viewBox={`0 0 ${W} ${total}`}
        width="100%"
        role="img"
        aria-label={
          wire
            ? `Bump in the wire: the lab between ports ${wire.a} and ${wire.b}, ${form.flows.length} flow(s) between external hosts`
            : `Dumbbell topology: ${form.paths.length} path(s), ${form.flows.length} flow(s)`
        }
        style={{
          maxHeight: 420,
          maxWidth: 440,
          display: 'block',
          margin: '0 auto',
          fontFamily: 'system-ui, sans-serif',
        }}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="6"
            markerHeight="6"
            orient="auto-start-reverse"
          >
            <path d="M0,0 L10,5 L0,10 z" fill="context-stroke" />
          </marker>
        </defs>
        {blocks.map(({ p, flows, height }) => {
          const top = y0;
          y0 += height + 10;
          const mid = top + height / 2;
          const rL = 130;
          const rR = 230;
          const rows = [
            ...flows.map((x) => ({ kind: 'tcp' as const, ...x })),
            ...p.cross.map((c, k) => ({ kind: 'udp' as const, c, k })),
          ];
          const yOf = (n: number) => top + 30 + n * ROW + (height - 40 - rows.length * ROW) / 2 + ROW / 2;
          return (
            <g key={p.name}>
              <text x={W / 2} y={top + 12} textAnchor="middle" fontSize="11" fill="#333">
                {p.name}: {p.rate} · RTT {p.rtt} · buffer {p.buffer}
                {p.bufferUnit === 'bdp' ? '×BDP' : p.bufferUnit === 'packets' ? ' pkts' : ''}
                {p.ber && p.ber !== '0' ? ` · BER ${p.ber}` : ''}
              </text>
              <line x1={rL} y1={mid} x2={rR} y2={mid} stroke="#444" strokeWidth={5} />
              <rect
                x={rL - 14}
                y={mid - 14}
                width={28}
                height={28}
                rx={6}
                fill="#fff"
                stroke="#444"
                strokeWidth={1.5}
              />
              <rect
                x={rR - 14}
                y={mid - 14}
                width={28}
                height={28}
                rx={6}
                fill="#fff"
                stroke="#444"
                strokeWidth={1.5}
              />
              <text x={rL} y={mid + 4} textAnchor="middle" fontSize="10">
                {wire ? wire.a : 'R1'}
              </text>
              <text x={rR} y={mid + 4} textAnchor="middle" fontSize="10">
                {wire ? wire.b : 'R2'}
              </text>
              {wire && (
                <text x={W / 2} y={mid + 26} textAnchor="middle" fontSize="10" fill="#333">
                  lab: bump in the wire
                </text>
              )}
              {rows.map((r, n) => {
                const y = yOf(n);
                if (r.kind === 'udp') {
                  return (
                    <g key={`udp${r.k}`}>
                      <line
                        x1={70}
                        y1={y}
                        x2={rL - 14}
                        y2={mid}
                        stroke="#777"
                        strokeDasharray="4 3"
                        markerEnd="url(#arrow)"
                      />
                      <text x={66} y={y + 4} textAnchor="end" fontSize="10" fill="#555">
                        UDP {r.c.pattern}
                      </text>
                    </g>
                  );
                }
                const color = stackColor(r.f.stack);
                const label = `${r.f.name || `${r.f.stack}-${r.i + 1}`}${r.f.streams > 1 ? ` ×${r.f.streams}` : ''}`;
                const reverse = r.f.direction === 'reverse';
                return (
                  <g key={`tcp${r.i}`}>
                    <line
                      x1={70}
                      y1={y}
                      x2={rL - 14}
                      y2={mid}
                      stroke={color}
                      strokeWidth={2}
                      markerStart={reverse ? 'url(#arrow)' : undefined}
                    />
                    <line
                      x1={rR + 14}
                      y1={mid}
                      x2={290}
                      y2={y}
                      stroke={color}
                      strokeWidth={2}
                      markerEnd={reverse ? undefined : 'url(#arrow)'}
                    />
                    <text x={66} y={y + 4} textAnchor="end" fontSize="10" fill={color}>
                      {label}
                    </text>
                    <text x={294} y={y + 4} fontSize="10" fill={color}>
                      {r.f.stack}
                    </text>
                  </g>
                );
              })}
            </g>
          );
        })}
      </svg>
    </Paper>
  );
}
