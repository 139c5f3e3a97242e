// How a run is named on screen. A campaign's run is stored as `CAMPAIGN/VARIANT-ID` (the id is for
// directories and links); people read the campaign's name and the variant's label instead:
// `seed003-responsiveness: 100 Mbit/s · 120 ms · rep 2`. Records from before labels keep their name.

interface Named {
  name: string;
  label?: string | null;
}

/** The campaign a run's stored name belongs to (`CAMPAIGN/VARIANT-ID`), or null for a plain run. */
const campaignOf = (name: string): string | null => {
  const slash = name.indexOf('/');
  return slash > 0 ? name.slice(0, slash) : null;
};

/** A run's name as people read it, anywhere a run stands on its own (lists, titles, pickers). */
export function runTitle(r: Named): string {
  if (!r.label) return r.name;
  const campaign = campaignOf(r.name);
  return campaign ? `${campaign}: ${r.label}` : r.label;
}

/** Inside a view of one campaign, where its name is already shown: the variant's label alone. */
export const variantTitle = (r: Named): string => r.label || r.name;
