// Classes as records of their own (DATA/classes.json): a name students are put in, the instructors
// who teach it, display names of its students, and a quota its instructors set for its students
// within the admin's student quota. Before classes existed, "class" was free text on each user;
// the first start after the upgrade makes one class per name in use, with the instructors who had it.
import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from '../service/jsonFile.js';
import { randomId } from '../service/passwords.js';
import { type PublicUser, type Quota, ServiceError } from '../service/types.js';

export interface ClassRecord {
  id: string;
  name: string;
  instructorIds: string[];
  /** Students' display names by user id (from the CSV import). */
  displayNames: Record<string, string>;
  /** Limits for this class's students; null: the admin's student quota as it is. */
  quota: Quota | null;
  createdAt: string;
}

export const CLASS_NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;
export const CLASS_NAME_RULE = '1-64 letters, digits, spaces, _ . - (starting with a letter or digit)';

export class ClassStore {
  private classes: ClassRecord[];
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'classes.json');
    this.classes = readJsonFile<ClassRecord[]>(this.file, []);
  }

  private save() {
    writeJsonAtomic(this.file, this.classes);
  }

  /** One class per free-text class name the users have and no class record carries yet. */
  migrateFrom(users: PublicUser[]): void {
    let changed = false;
    for (const u of users) {
      if (!u.class) continue;
      let c = this.byName(u.class);
      if (!c) {
        c = this.newRecord(u.class);
        this.classes.push(c);
        changed = true;
      }
      if (u.role === 'instructor' && !c.instructorIds.includes(u.id)) {
        c.instructorIds.push(u.id);
        changed = true;
      }
    }
    if (changed) this.save();
  }

  private newRecord(name: string): ClassRecord {
    return {
      id: randomId(),
      name,
      instructorIds: [],
      displayNames: {},
      quota: null,
      createdAt: new Date().toISOString(),
    };
  }

  all(): ClassRecord[] {
    return structuredClone(this.classes);
  }

  get(id: string): ClassRecord | null {
    const c = this.classes.find((x) => x.id === id);
    return c ? structuredClone(c) : null;
  }

  byName(name: string): ClassRecord | null {
    return this.classes.find((x) => x.name === name) ?? null;
  }

  /** The classes this user teaches (admins: every class). */
  taughtBy(u: PublicUser): ClassRecord[] {
    if (u.role === 'admin') return this.all();
    if (u.role !== 'instructor') return [];
    return this.all().filter((c) => c.instructorIds.includes(u.id) || c.name === u.class);
  }

  teaches(u: PublicUser, className: string | null): boolean {
    if (!className) return false;
    if (u.role === 'admin') return true;
    if (u.role !== 'instructor') return false;
    const c = this.byName(className);
    return u.class === className || (c?.instructorIds.includes(u.id) ?? false);
  }

  create(name: string, instructorIds: string[]): ClassRecord {
    if (this.byName(name))
      throw new ServiceError(409, `class ${name} already exists`, [{ path: 'name', message: 'is taken' }]);
    const c = { ...this.newRecord(name), instructorIds };
    this.classes.push(c);
    this.save();
    return structuredClone(c);
  }

  update(id: string, patch: Partial<Pick<ClassRecord, 'quota' | 'instructorIds'>>): ClassRecord {
    const c = this.classes.find((x) => x.id === id);
    if (!c) throw new ServiceError(404, `no class ${id}`);
    if (patch.quota !== undefined) c.quota = patch.quota;
    if (patch.instructorIds !== undefined) c.instructorIds = patch.instructorIds;
    this.save();
    return structuredClone(c);
  }

  setDisplayNames(id: string, names: Record<string, string>): void {
    const c = this.classes.find((x) => x.id === id);
    if (!c) throw new ServiceError(404, `no class ${id}`);
    Object.assign(c.displayNames, names);
    this.save();
  }

  delete(id: string): void {
    this.classes = this.classes.filter((x) => x.id !== id);
    this.save();
  }

  /** A user left: off every class's instructor list and display names. */
  forgetUser(userId: string): void {
    for (const c of this.classes) {
      c.instructorIds = c.instructorIds.filter((x) => x !== userId);
      delete c.displayNames[userId];
    }
    this.save();
  }
}
