// One colour per flow, the same on every chart and on the topology sketch. Chosen for contrast on
// white (WCAG ≥ 3:1 for graphics) and to stay apart under the common colour-vision deficiencies.
const PALETTE = [
  '#1f6fb4',
  '#d1495b',
  '#2a9d3f',
  '#8e44ad',
  '#c76b00',
  '#00838f',
  '#6d4c41',
  '#c2185b',
  '#3f51b5',
  '#7a8a00',
  '#e64a19',
  '#00695c',
  '#5d4037',
  '#283593',
  '#ad1457',
  '#2e7d32',
];

export const colorOf = (i: number): string => PALETTE[i % PALETTE.length] as string;
