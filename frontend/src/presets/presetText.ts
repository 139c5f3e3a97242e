import type { Preset } from '../api/types';

export const paperLabel = (p: Preset): string =>
  typeof p.paper === 'string' ? p.paper : `Seed ${p.paper.id}: ${p.paper.short}`;

export const paperTitle = (p: Preset): string | null => (typeof p.paper === 'string' ? null : p.paper.title);

export const scalingRule = (p: Preset): string | null =>
  typeof p.scaling === 'string' ? p.scaling : (p.scaling?.rule ?? null);
