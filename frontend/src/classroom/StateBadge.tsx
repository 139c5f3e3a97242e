// Where a student stands on an assignment, as a word first (colour only repeats it): blue and
// orange stay apart under the common colour-vision deficiencies.
import { Badge } from '@mantine/core';
import type { StudentState } from './api';

const LOOK: Record<StudentState, { color: string; variant: 'light' | 'outline' | 'filled' }> = {
  'not started': { color: 'gray', variant: 'outline' },
  waiting: { color: 'gray', variant: 'light' },
  graded: { color: 'blue', variant: 'light' },
  stuck: { color: 'orange', variant: 'filled' },
};

export function StateBadge({ state }: { state: StudentState }) {
  const look = LOOK[state];
  return (
    <Badge color={look.color} variant={look.variant} size="sm">
      {state}
    </Badge>
  );
}
