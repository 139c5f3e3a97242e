// Who sees and controls what: admins everything, students their own, instructors their own and
// their class's (students whose class is the instructor's). Owners are user ids, never usernames:
// a deleted account's name given to someone new carries none of the old account's records.
import type { Accounts } from './accounts.js';
import type { PublicUser } from './types.js';

export class Access {
  constructor(private readonly accounts: Accounts) {}

  canSee(viewer: PublicUser, ownerId: string): boolean {
    if (viewer.role === 'admin' || viewer.id === ownerId) return true;
    if (viewer.role !== 'instructor' || !viewer.class) return false;
    const o = this.accounts.user(ownerId);
    return o?.role === 'student' && o.class === viewer.class;
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
