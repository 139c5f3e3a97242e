// What an address that names nothing shows: plain words and a way on, never a spinner.
import { Alert, Anchor, Stack, Text, Title } from '@mantine/core';
import { hrefOf } from './router';

export function NotFound({ what, id }: { what: string; id?: string }) {
  return (
    <Stack maw={640} data-testid="not-found">
      <Title order={2}>No such {what}</Title>
      <Alert color="gray" variant="light">
        <Text size="sm">
          {id ? (
            <>
              There is no {what} <code>{id}</code> that you can see: the address may be mistyped, or it
              belongs to someone else.
            </>
          ) : (
            `There is no such ${what}.`
          )}
        </Text>
      </Alert>
      <Text size="sm">
        <Anchor href={hrefOf({ page: 'runs' })}>See your runs</Anchor> or{' '}
        <Anchor href={hrefOf({ page: 'designer' })}>design a new experiment</Anchor>.
      </Text>
    </Stack>
  );
}
