// Catches a page that fails (its code did not load, or it threw) so the rest of the app keeps
// working: the header and navigation stay, and "Try again" loads the page afresh.
import { Alert, Button, Group, Text } from '@mantine/core';
import { Component, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
  /** Make fresh page components (see makePages) before rendering the children again. */
  onRetry: () => void;
  /** Resets the boundary when the route changes. */
  resetKey: string;
}

interface State {
  error: Error | null;
  resetKey: string;
}

const isLoadFailure = (e: Error) =>
  /dynamically imported module|Importing a module script failed|Failed to fetch|error loading dynamically/i.test(
    e.message,
  );

export class PageBoundary extends Component<Props, State> {
  state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey !== state.resetKey ? { error: null, resetKey: props.resetKey } : null;
  }

  retry = () => {
    this.props.onRetry();
    this.setState({ error: null });
  };

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    const load = isLoadFailure(error);
    return (
      <Alert
        color="red"
        title={load ? 'This page could not be loaded' : 'This page stopped working'}
        role="alert"
      >
        <Text size="sm">
          {load
            ? 'Its code did not arrive: the lfnlab service may be restarting or the network dropped. The rest of the app still works.'
            : `Something went wrong while showing it: ${error.message}`}
        </Text>
        <Group mt="sm" gap="xs">
          <Button size="xs" onClick={this.retry}>
            Try again
          </Button>
          <Button size="xs" variant="default" onClick={() => window.location.reload()}>
            Reload the app
          </Button>
        </Group>
      </Alert>
    );
  }
}
