// A run's or variant's label that wraps only between its parts: `120 ms` or `buffer 0.05 BDP`
// never breaks inside, so a narrow screen does not put a number on one line and its unit on the next.
import { Fragment } from 'react';

export function LabelText({ text }: { text: string }) {
  const parts = text.split(' · ');
  return parts.map((part, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: parts of one fixed string, never reordered
    <Fragment key={i}>
      <span style={{ whiteSpace: 'nowrap' }}>{part}</span>
      {i < parts.length - 1 ? ' · ' : ''}
    </Fragment>
  ));
}
