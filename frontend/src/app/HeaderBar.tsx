// The header: product name, the user with their role, and the lab's state (booted, TCG/KVM, stacks).
import { Badge, Burger, Button, Group, HoverCard, Text, Title } from '@mantine/core';
import { useLabs } from '../api/queries';
import type { Lab } from '../api/types';
import { useSession } from '../auth/session';

const STATE_COLOR: Record<Lab['state'], string> = {
  down: 'gray',
  booting: 'yellow',
  ready: 'teal',
  busy: 'blue',
};

function LabStatus() {
  const labs = useLabs();
  if (labs.isError) return <Badge color="red">lab status unavailable</Badge>;
  const lab = labs.data?.[0];
  if (!lab) return <Badge color="gray">{labs.isPending ? 'lab …' : 'no lab'}</Badge>;
  const accel = lab.accel ? lab.accel.toUpperCase() : 'accelerator unknown';
  return (
    <HoverCard width={320} shadow="md" withArrow openDelay={150}>
      <HoverCard.Target>
        <Group
          gap={6}
          tabIndex={0}
          aria-label={`Lab ${lab.name}: ${lab.state}, ${accel}, ${lab.stacks.length} stacks`}
          data-testid="lab-status"
        >
          <Badge
            color={STATE_COLOR[lab.state]}
            variant="filled"
            c={lab.state === 'booting' ? 'dark' : undefined}
          >
            lab {lab.state === 'ready' || lab.state === 'busy' ? `booted · ${lab.state}` : lab.state}
          </Badge>
          {lab.accel && (
            <Badge
              variant="outline"
              color={lab.accel === 'kvm' ? 'teal' : 'orange'}
              title={
                lab.accel === 'tcg'
                  ? 'software emulation: ~100 Mbit/s is the faithful limit'
                  : 'hardware virtualisation'
              }
            >
              {accel}
            </Badge>
          )}
          {lab.stacks.length > 0 && (
            <Badge variant="outline" color="gray">
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
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
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
        <LabStatus />
      </Group>
      {user && (
        <Group gap="xs" wrap="nowrap">
          <Text size="sm" data-testid="current-user">
            {user.username}
          </Text>
          <Badge
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
          <Button size="xs" variant="default" onClick={() => void logout()}>
            Log out
          </Button>
        </Group>
      )}
    </Group>
  );
}
