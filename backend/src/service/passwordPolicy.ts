// What a password must be: at least 10 characters, not only spaces, not the username, and not in
// the list of ~49,000 common and breached passwords that @zxcvbn-ts/language-common ships (MIT).
import { dictionary } from '@zxcvbn-ts/language-common';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 1024;

let common: Set<string> | null = null;
const commonPasswords = () => {
  common ??= new Set(dictionary['passwords-common'].map((p) => p.toLowerCase()));
  return common;
};

/** Why this password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, username?: string): string | null {
  if (password.length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  if (password.trim() === '') return 'must not be only spaces';
  const lower = password.toLowerCase();
  if (username && lower.includes(username.toLowerCase())) return 'must not contain the username';
  if (commonPasswords().has(lower)) return 'is a common password (found in breach lists); choose another';
  return null;
}
