// Stored specs and campaigns (the text as the person wrote it): one file each under DATA/specs/,
// so storing one writes that file only, however many there are. Each user may keep at most
// MAX_SPECS_PER_USER of them, MAX_SPEC_BYTES_PER_USER of text in all.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from './jsonFile.js';
import { randomId } from './passwords.js';
import { type PublicUser, ServiceError, type StoredSpec } from './types.js';
import { checkCampaignText, checkSpecText } from './validation.js';

export const MAX_SPECS_PER_USER = 200;
export const MAX_SPEC_BYTES_PER_USER = 20 * 1024 * 1024;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export class SpecStore {
  private readonly specs = new Map<string, StoredSpec>();
  private readonly dir: string;

  /** ownerIdOf: a username's current id, for records from before ids (null: the account is gone). */
  constructor(dataDir: string, ownerIdOf: (username: string) => string | null = () => null) {
    this.dir = join(dataDir, 'specs');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith('.json')) continue;
      const s = readJsonFile<StoredSpec | null>(join(this.dir, f), null);
      if (s && ID.test(s.id)) this.specs.set(s.id, s);
    }
    // Before one file per spec: DATA/specs.json held all, owned by username. Moved once.
    const legacy = join(dataDir, 'specs.json');
    if (existsSync(legacy)) {
      for (const s of readJsonFile<StoredSpec[]>(legacy, [])) {
        const migrated = { ...s, ownerId: s.ownerId ?? ownerIdOf(s.owner) ?? `(deleted) ${s.owner}` };
        this.specs.set(s.id, migrated);
        this.save(migrated);
      }
      renameSync(legacy, `${legacy}.migrated`);
    }
  }

  private save(s: StoredSpec) {
    writeJsonAtomic(join(this.dir, `${s.id}.json`), s);
  }

  /** A stored spec must validate, so every run started from one can start. */
  static async check(kind: StoredSpec['kind'], text: string): Promise<void> {
    const r = kind === 'campaign' ? await checkCampaignText(text) : checkSpecText(text);
    if (!r.ok)
      throw new ServiceError(
        400,
        `invalid ${kind}: ${r.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
        r.problems,
      );
  }

  list(visible: (ownerId: string) => boolean): StoredSpec[] {
    return [...this.specs.values()].filter((s) => visible(s.ownerId));
  }

  get(id: string): StoredSpec | null {
    return this.specs.get(id) ?? null;
  }

  /** 409 when this would take the owner past the count or size limit. */
  private checkRoom(ownerId: string, addBytes: number, replacing: StoredSpec | null) {
    const mine = [...this.specs.values()].filter((s) => s.ownerId === ownerId && s !== replacing);
    if (!replacing && mine.length >= MAX_SPECS_PER_USER)
      throw new ServiceError(409, `at most ${MAX_SPECS_PER_USER} stored specs per user; delete some first`, [
        { path: 'name', message: `at most ${MAX_SPECS_PER_USER} per user` },
      ]);
    const bytes = mine.reduce((n, s) => n + Buffer.byteLength(s.text), 0) + addBytes;
    if (bytes > MAX_SPEC_BYTES_PER_USER)
      throw new ServiceError(
        409,
        `stored specs of one user hold at most ${MAX_SPEC_BYTES_PER_USER / 1024 / 1024} MB of text; delete some first`,
        [
          {
            path: 'text',
            message: `all of a user's texts together at most ${MAX_SPEC_BYTES_PER_USER} bytes`,
          },
        ],
      );
  }

  async create(o: {
    name: string;
    kind: StoredSpec['kind'];
    text: string;
    owner: PublicUser;
  }): Promise<StoredSpec> {
    this.checkRoom(o.owner.id, Buffer.byteLength(o.text), null);
    await SpecStore.check(o.kind, o.text);
    // Checked again after the wait: another create may have used the room meanwhile.
    this.checkRoom(o.owner.id, Buffer.byteLength(o.text), null);
    const now = new Date().toISOString();
    const s: StoredSpec = {
      id: randomId(),
      name: o.name,
      kind: o.kind,
      text: o.text,
      owner: o.owner.username,
      ownerId: o.owner.id,
      createdAt: now,
      updatedAt: now,
    };
    this.save(s);
    this.specs.set(s.id, s);
    return s;
  }

  async update(id: string, patch: { name?: string; text?: string }): Promise<StoredSpec> {
    const s = this.get(id);
    if (!s) throw new ServiceError(404, `no spec ${id}`);
    if (patch.text !== undefined) {
      this.checkRoom(s.ownerId, Buffer.byteLength(patch.text), s);
      await SpecStore.check(s.kind, patch.text);
    }
    const next: StoredSpec = {
      ...s,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.text !== undefined ? { text: patch.text } : {}),
      updatedAt: new Date().toISOString(),
    };
    this.save(next);
    this.specs.set(id, next);
    return next;
  }

  delete(id: string): void {
    if (!this.get(id)) throw new ServiceError(404, `no spec ${id}`);
    rmSync(join(this.dir, `${id}.json`), { force: true });
    this.specs.delete(id);
  }
}
