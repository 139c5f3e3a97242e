// Spec and campaign validation for the API: the emulator's one parse and one validation (the same
// the CLI and the UI designer use), with problems in their one shape. The only thing added here is
// where a problem about the whole document goes: at the request field that held it (`root`).
import {
  type Checked,
  checkSpecText as checkEmulatorSpecText,
  parseDocument as parseEmulatorDocument,
  problemsOf,
  type Spec,
  type SpecProblem,
  validateSpec,
} from '@lfnlab/emulator';
import {
  type Campaign,
  CampaignError,
  CampaignSchema,
  expandCampaignAsync,
  type Variant,
} from '../campaign/expand.js';
import type { Problem } from './types.js';

export type { Checked };

/** Problems about the whole document ('') are filed at `root`. */
const at = (root: string, problems: readonly SpecProblem[]): Problem[] =>
  problems.map((p) => ({ path: p.path || root, message: p.message }));

/** YAML or JSON text to a document; `root` names the field holding the text for a parse error. */
export function parseDocument(text: string, root: string): Checked<unknown> {
  const d = parseEmulatorDocument(text);
  return d.ok ? d : { ok: false, problems: at(root, d.problems) };
}

/** Validate a spec document; problems at the spec's root are reported at `root`. */
export function checkSpec(doc: unknown, root: string): Checked<Spec> {
  const v = validateSpec(doc);
  return v.ok ? { ok: true, value: v.spec } : { ok: false, problems: at(root, v.problems) };
}

export function checkSpecText(text: string, root = 'text'): Checked<Spec> {
  const r = checkEmulatorSpecText(text);
  return r.ok ? r : { ok: false, problems: at(root, r.problems) };
}

export interface CheckedCampaign {
  campaign: Campaign;
  /** Each with its spec validated once, at expansion. */
  variants: Variant[];
}

/** A campaign document (parsed text, or an object as sent): its own fields, then every variant. */
export async function checkCampaignDocument(doc: unknown, root: string): Promise<Checked<CheckedCampaign>> {
  const r = CampaignSchema.safeParse(doc);
  if (!r.success) return { ok: false, problems: at(root, problemsOf(r.error)) };
  return checkCampaign(r.data, root);
}

/**
 * A campaign file: its own fields, then every variant validated as a spec (paths under `base.`).
 * Expansion gives the event loop back as it goes (expandCampaignAsync): the service stays responsive.
 */
export async function checkCampaignText(text: string, root = 'text'): Promise<Checked<CheckedCampaign>> {
  const doc = parseDocument(text, root);
  return doc.ok ? checkCampaignDocument(doc.value, root) : doc;
}

export async function checkCampaign(campaign: Campaign, root: string): Promise<Checked<CheckedCampaign>> {
  try {
    return { ok: true, value: { campaign, variants: await expandCampaignAsync(campaign) } };
  } catch (err) {
    if (err instanceof CampaignError) return { ok: false, problems: at(root, err.problems) };
    return { ok: false, problems: [{ path: root, message: (err as Error).message }] };
  }
}
