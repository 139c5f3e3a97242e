// The designer's form survives leaving the page (Launch → live → Back, a look at Runs): the
// working copy is kept in sessionStorage per spec ("new" for an unsaved one) and read on return.
// Save messages that outlive the remount a save's navigation causes are kept the same way.
import { defaultSpecForm, type SpecForm } from './formModel';

const key = (specId: string | undefined) => `lfnlab.designer.working.${specId ?? 'new'}`;
const FLASH = 'lfnlab.designer.flash';

export function loadWorkingCopy(specId: string | undefined): SpecForm | null {
  try {
    const t = sessionStorage.getItem(key(specId));
    // Over the defaults: a copy kept by an older page may lack a field added since (wire).
    return t ? { ...defaultSpecForm(), ...(JSON.parse(t) as Partial<SpecForm>) } : null;
  } catch {
    return null;
  }
}

export function saveWorkingCopy(specId: string | undefined, form: SpecForm): void {
  try {
    sessionStorage.setItem(key(specId), JSON.stringify(form));
  } catch {
    /* storage full or off: the form still works, it just does not survive leaving */
  }
}

export const dropWorkingCopy = (specId: string | undefined) => sessionStorage.removeItem(key(specId));

/** A message for the next designer page to show once (e.g. "Saved as …" after the URL changes). */
export const setFlash = (text: string) => sessionStorage.setItem(FLASH, text);
export function takeFlash(): string | null {
  const t = sessionStorage.getItem(FLASH);
  sessionStorage.removeItem(FLASH);
  return t;
}
