// Who sees and controls what: admins everything, students their own, instructors their own and
// their class's (students whose class is the instructor's).
import type { Accounts } from './accounts.js';
import type { PublicUser } from './types.js';

export class Access {
  constructor(private readonly accounts: Accounts) {}

  canSee(viewer: PublicUser, owner: string): boolean {
    if (viewer.role === 'admin' || viewer.username === owner) return true;
    if (viewer.role !== 'instructor' || !viewer.class) return false;
    const o = this.accounts.userByName(owner);
    return o?.role === 'student' && o.class === viewer.class;
  }

  /** Stopping a run: whoever may see it (an instructor can stop a student's runaway run). */
  canControl(viewer: PublicUser, owner: string): boolean {
    return this.canSee(viewer, owner);
  }

  /** Stored specs can be changed by their owner and admins only. */
  canEdit(viewer: PublicUser, owner: string): boolean {
    return viewer.role === 'admin' || viewer.username === owner;
  }
}
