// A run's or variant's label that wraps only between its parts (and in `CAMPAIGN:`): `120 ms`
// or `buffer 0.05 BDP` never breaks inside, so a narrow screen does not put a number on one line
// and its unit on the next.
import { Fragment } from 'react';

const nowrap = { whiteSpace: 'nowrap' } as const;

export function LabelText({ text }: { text: string }) {
  const colon = text.indexOf(': ');
  const campaign = colon > 0 && !text.slice(0, colon).includes(' ') ? text.slice(0, colon + 1) : null;
  const parts = (campaign ? text.slice(colon + 2) : text).split(' · ');
  return (
    <>
      {/* A campaign's name may be long: it breaks where the browser can (after hyphens). */}
      {campaign && `${campaign} `}
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: parts of one fixed string, never reordered
        <Fragment key={i}>
          <span style={nowrap}>{part}</span>
          {i < parts.length - 1 ? ' · ' : ''}
        </Fragment>
      ))}
    </>
  );
}
