// The header: product name, the user with their role, and the lab's state (booted, TCG/KVM, stacks).
import { Badge, Burger, Button, Group, HoverCard, Text, Title } from '@mantine/core';
import { useLabs, useQueueBoard } from '../api/queries';
import type { Lab, QueueBoard } from '../api/types';
import { useSession } from '../auth/session';
import { NotifyToggle } from '../queue/QueuePanel';

const STATE_COLOR: Record<Lab['state'], string> = {
  down: 'gray',
  booting: 'yellow',
  ready: 'teal',
  busy: 'blue',
};

/** Whether the viewer has a run waiting or running: then the lab badge is polled closely. */
const mineActive = (b: QueueBoard | undefined) =>
  Boolean(b && (b.myQueued > 0 || b.labs.some((l) => l.running?.mine)));

/** "3 ahead" while one of the viewer's runs waits; "your turn" while one runs. */
function QueueStatus({ board }: { board: QueueBoard | undefined }) {
  if (!board) return null;
  const running = board.labs.some((l) => l.running?.mine);
  if (board.myFirstAhead === null && !running) return null;
  // Short enough for a phone's header beside the lab badge.
  const text = running ? 'your turn' : `${board.myFirstAhead} ahead`;
  const waiting = board.labs.reduce((n, l) => n + l.waiting.length, 0);
  return (
    <HoverCard width={280} shadow="md" withArrow openDelay={150}>
      <HoverCard.Target>
        <Badge
          color={running ? 'blue' : 'gray'}
          variant="light"
          tabIndex={0}
          style={{ flexShrink: 0 }}
          data-testid="queue-status"
          aria-label={
            running
              ? 'One of your runs has the lab now'
              : `${board.myFirstAhead} runs start before your next one; ${board.myQueued} of yours waiting`
          }
        >
          {text}
        </Badge>
      </HoverCard.Target>
      <HoverCard.Dropdown>
        <Text size="sm">
          {board.myQueued} of your runs waiting, {waiting} in the queue in all.
          {board.myFirstAhead !== null ? ` ${board.myFirstAhead} start before your next one.` : ''}
        </Text>
        <NotifyToggle />
      </HoverCard.Dropdown>
    </HoverCard>
  );
}

function LabStatus({ active }: { active: boolean }) {
  const labs = useLabs(true, active);
  if (labs.isError) return <Badge color="red">lab status unavailable</Badge>;
  const lab = labs.data?.[0];
  if (!lab) return <Badge color="gray">{labs.isPending ? 'lab …' : 'no lab'}</Badge>;
  const accel = lab.accel ? lab.accel.toUpperCase() : 'accelerator unknown';
  return (
    <HoverCard width={320} shadow="md" withArrow openDelay={150}>
      <HoverCard.Target>
        <Group
          gap={6}
          wrap="nowrap"
          style={{ flexShrink: 0 }}
          tabIndex={0}
          aria-label={`Lab ${lab.name}: ${lab.state}, ${accel}, ${lab.stacks.length} stacks`}
          data-testid="lab-status"
        >
          <Badge
            color={STATE_COLOR[lab.state]}
            variant="filled"
            c={lab.state === 'booting' ? 'dark' : undefined}
            style={{ flexShrink: 0 }}
          >
            lab {lab.state}
          </Badge>
          {lab.accel && (
            <Badge
              visibleFrom="sm"
              variant="outline"
              color={lab.accel === 'tcg' ? 'orange' : 'teal'}
              title={
                lab.accel === 'tcg'
                  ? 'software emulation: ~100 Mbit/s is the faithful limit'
                  : lab.accel === 'remote'
                    ? 'a lab PC booted from the lab ISO, reached over the network'
                    : 'hardware virtualisation'
              }
            >
              {accel}
            </Badge>
          )}
          {lab.stacks.length > 0 && (
            <Badge variant="outline" color="gray" visibleFrom="md">
              {lab.stacks.length} stacks
            </Badge>
          )}
        </Group>
      </HoverCard.Target>
      <HoverCard.Dropdown>
        <Text size="sm" fw={600}>
          {lab.name}: {lab.state}
        </Text>
        <Text size="xs">
          {accel}, {lab.cpus ?? '?'} CPUs, kernel {lab.kernel ?? 'not booted yet'}
          {lab.bootMs ? `, booted in ${(lab.bootMs / 1000).toFixed(1)} s` : ''}
        </Text>
        <Text size="xs" mt={4}>
          Stacks: {lab.stacks.length ? lab.stacks.join(', ') : 'known once the lab has booted'}
        </Text>
      </HoverCard.Dropdown>
    </HoverCard>
  );
}

export function HeaderBar({ navOpen, toggleNav }: { navOpen: boolean; toggleNav: () => void }) {
  const { user, logout } = useSession();
  const board = useQueueBoard();
  return (
    <Group h="100%" px={{ base: 'xs', sm: 'md' }} justify="space-between" wrap="nowrap" gap="xs">
      <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }} data-testid="header-left">
        <Burger
          opened={navOpen}
          onClick={toggleNav}
          hiddenFrom="sm"
          size="sm"
          aria-label="Toggle navigation"
        />
        <Title order={1} size="h3">
          lfnlab
        </Title>
        <LabStatus active={mineActive(board.data)} />
        <QueueStatus board={board.data} />
      </Group>
      {user && (
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" data-testid="current-user" visibleFrom="sm">
            {user.username}
          </Text>
          <Badge
            visibleFrom="xs"
            variant="light"
            color={user.role === 'admin' ? 'grape' : user.role === 'instructor' ? 'indigo' : 'blue'}
          >
            {user.role}
          </Badge>
          {user.class && (
            <Text size="xs" c="dimmed" visibleFrom="md">
              class {user.class}
            </Text>
          )}
          {/* On a phone "Log out" is in the navigation drawer: the header needs the room. */}
          <Button size="xs" variant="default" onClick={() => void logout()} visibleFrom="sm">
            Log out
          </Button>
        </Group>
      )}
    </Group>
  );
}
