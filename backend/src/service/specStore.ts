// Stored specs and campaigns (the text as the person wrote it), one JSON file for all of them.
import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from './jsonFile.js';
import { randomId } from './passwords.js';
import { ServiceError, type StoredSpec } from './types.js';
import { checkCampaignText, checkSpecText } from './validation.js';

export class SpecStore {
  private specs: StoredSpec[];
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'specs.json');
    this.specs = readJsonFile<StoredSpec[]>(this.file, []);
  }

  private save() {
    writeJsonAtomic(this.file, this.specs);
  }

  /** A stored spec must validate, so every run started from one can start. */
  static check(kind: StoredSpec['kind'], text: string): void {
    const r = kind === 'campaign' ? checkCampaignText(text) : checkSpecText(text);
    if (!r.ok)
      throw new ServiceError(
        400,
        `invalid ${kind}: ${r.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
        r.problems,
      );
  }

  list(visible: (owner: string) => boolean): StoredSpec[] {
    return this.specs.filter((s) => visible(s.owner));
  }

  get(id: string): StoredSpec | null {
    return this.specs.find((s) => s.id === id) ?? null;
  }

  create(o: { name: string; kind: StoredSpec['kind']; text: string; owner: string }): StoredSpec {
    SpecStore.check(o.kind, o.text);
    const now = new Date().toISOString();
    const s: StoredSpec = { id: randomId(), ...o, createdAt: now, updatedAt: now };
    this.specs.push(s);
    this.save();
    return s;
  }

  update(id: string, patch: { name?: string; text?: string }): StoredSpec {
    const s = this.get(id);
    if (!s) throw new ServiceError(404, `no spec ${id}`);
    if (patch.text !== undefined) SpecStore.check(s.kind, patch.text);
    Object.assign(s, patch, { updatedAt: new Date().toISOString() });
    this.save();
    return s;
  }

  delete(id: string): void {
    if (!this.get(id)) throw new ServiceError(404, `no spec ${id}`);
    this.specs = this.specs.filter((s) => s.id !== id);
    this.save();
  }
}
