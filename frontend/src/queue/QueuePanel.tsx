// What a queued run's live page shows instead of empty charts: its place in line, how many runs
// are ahead, when it should start, and the offer to be notified when it does.
import { Alert, Button, Group, Text } from '@mantine/core';
import type { Run } from '../api/types';
import { notificationsSupported, setNotifications, useNotificationsOn } from './notifications';
import { waitText } from './waitText';

export function QueuePanel({ run }: { run: Run }) {
  return (
    <Alert color="gray" variant="light" title="Waiting for the lab" data-testid="queue-panel">
      <Text size="sm">
        {run.queue ? `${waitText(run.queue)}.` : 'In the queue; its place is being worked out.'} The lab runs
        one experiment at a time, taking turns between people; charts appear when it starts.
      </Text>
      <NotifyToggle />
    </Alert>
  );
}

export function NotifyToggle() {
  const on = useNotificationsOn();
  if (!notificationsSupported()) return null;
  return (
    <Group mt="xs" gap="xs">
      <Button
        size="xs"
        variant={on ? 'light' : 'default'}
        onClick={() => void setNotifications(!on)}
        aria-pressed={on}
      >
        {on ? 'Notifications on: runs starting and ending' : 'Notify me when my runs start and end'}
      </Button>
    </Group>
  );
}
