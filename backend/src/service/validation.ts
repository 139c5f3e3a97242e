// Spec and campaign validation for the API: the emulator's one schema, with every problem's field
// as a dotted path (`flows.0.stack`, the form UI form libraries use) and the schema's own message.
import { type Spec, SpecSchema } from '@lfnlab/emulator';
import { parse as parseYaml } from 'yaml';
import {
  type Campaign,
  CampaignError,
  CampaignSchema,
  expandCampaignAsync,
  type Variant,
} from '../campaign/expand.js';
import type { Problem } from './types.js';

/** `flows[1].stack` (the CLI's form) → `flows.1.stack`. */
export const dotted = (field: string) => field.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');

const joinPath = (path: readonly PropertyKey[]) => path.map(String).join('.');

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** YAML or JSON text to a document; `root` names the field holding the text for a parse error. */
export function parseDocument(text: string, root: string): Checked<unknown> {
  try {
    return { ok: true, value: parseYaml(text, { prettyErrors: true, maxAliasCount: 100 }) };
  } catch (err) {
    return {
      ok: false,
      problems: [{ path: root, message: `not valid YAML/JSON: ${(err as Error).message}` }],
    };
  }
}

/** Validate a spec document; problems at the spec's root are reported at `root`. */
export function checkSpec(doc: unknown, root: string): Checked<Spec> {
  const r = SpecSchema.safeParse(doc);
  if (r.success) return { ok: true, value: r.data };
  return {
    ok: false,
    problems: r.error.issues.map((i) => ({ path: joinPath(i.path) || root, message: i.message })),
  };
}

export function checkSpecText(text: string, root = 'text'): Checked<Spec> {
  const doc = parseDocument(text, root);
  return doc.ok ? checkSpec(doc.value, root) : doc;
}

export interface CheckedCampaign {
  campaign: Campaign;
  variants: Variant[];
}

/**
 * A campaign file: its own fields, then every variant validated as a spec (paths under `base.`).
 * Expansion gives the event loop back as it goes (expandCampaignAsync): the service stays responsive.
 */
export async function checkCampaignText(text: string, root = 'text'): Promise<Checked<CheckedCampaign>> {
  const doc = parseDocument(text, root);
  if (!doc.ok) return doc;
  const r = CampaignSchema.safeParse(doc.value);
  if (!r.success)
    return {
      ok: false,
      problems: r.error.issues.map((i) => ({ path: joinPath(i.path) || root, message: i.message })),
    };
  return checkCampaign(r.data, root);
}

export async function checkCampaign(campaign: Campaign, root: string): Promise<Checked<CheckedCampaign>> {
  try {
    return { ok: true, value: { campaign, variants: await expandCampaignAsync(campaign) } };
  } catch (err) {
    if (err instanceof CampaignError)
      return {
        ok: false,
        problems: err.problems.map((p) => ({ path: dotted(p.field) || root, message: p.message })),
      };
    return { ok: false, problems: [{ path: root, message: (err as Error).message }] };
  }
}

/** A variant's spec input, validated (expandCampaign already did; this gives the normalised spec). */
export function variantSpec(v: Variant): Spec {
  const r = SpecSchema.safeParse(v.spec);
  if (!r.success) throw new Error(`variant ${v.id} no longer validates`);
  return r.data;
}
