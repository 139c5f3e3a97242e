// Who sees and controls what: admins everything, students their own, instructors their own and
// their classes' (students in a class the instructor teaches: their own class, or one whose record
// lists them). Owners are user ids, never usernames:
// a deleted account's name given to someone new carries none of the old account's records.
import type { Accounts } from './accounts.js';
import type { PublicUser } from './types.js';

export class Access {
  constructor(
    private readonly accounts: Accounts,
    /** Whether the instructor teaches this class (the class records know; default: their own class). */
    private readonly teaches: (viewer: PublicUser, className: string) => boolean = (v, c) => v.class === c,
  ) {}

  canSee(viewer: PublicUser, ownerId: string): boolean {
    if (viewer.role === 'admin' || viewer.id === ownerId) return true;
    if (viewer.role !== 'instructor') return false;
    const o = this.accounts.user(ownerId);
    return o?.role === 'student' && o.class !== null && this.teaches(viewer, o.class);
  }

  /** Stopping a run: whoever may see it (an instructor can stop a student's runaway run). */
  canControl(viewer: PublicUser, ownerId: string): boolean {
    return this.canSee(viewer, ownerId);
  }

  /** Stored specs can be changed by their owner and admins only. */
  canEdit(viewer: PublicUser, ownerId: string): boolean {
    return viewer.role === 'admin' || viewer.id === ownerId;
  }
}
