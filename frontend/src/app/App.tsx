// The shell: header, navigation by role, and the page for the current hash route. Pages are
// loaded on demand so the first paint (log in, header) stays small.
import { AppShell, Center, Loader, NavLink, ScrollArea } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense, useCallback, useMemo, useState } from 'react';
import { useRuns } from '../api/queries';
import { LoginPage } from '../auth/LoginPage';
import { useSession } from '../auth/session';
import { useNotificationsOn, useRunNotifications } from '../queue/notifications';
import { ConnectionBanner } from './ConnectionBanner';
import { HeaderBar } from './HeaderBar';
import { PageBoundary } from './PageBoundary';
import { makePages, type Pages } from './pages';
import { hrefOf, navigate, type Route, useRoute } from './router';
import { useDrawerDismiss } from './useDrawerDismiss';

function Page({ route, pages: P }: { route: Route; pages: Pages }) {
  switch (route.page) {
    case 'designer':
      return <P.DesignerPage key={route.specId ?? 'new'} specId={route.specId} />;
    case 'presets':
      return <P.PresetsPage />;
    case 'runs':
      return <P.RunsPage />;
    case 'live':
      return <P.LivePage key={route.runId} runId={route.runId} />;
    case 'results':
      return <P.ResultsPage key={route.runId} runId={route.runId} />;
    case 'compare':
      return <P.ComparePage runIds={route.runIds} />;
    case 'campaigns':
      return <P.CampaignsPage />;
    case 'admin':
      return <P.AdminPage />;
    case 'class':
      return <P.ClassRunsPage />;
    case 'bench':
      return <P.ChartBenchPage />;
    case 'labs':
      return <P.LabsPage />;
    case 'classroom':
      return <P.ClassroomPage path={route.path} />;
  }
}

/**
 * Moves keyboard focus to the page, past the header and navigation. A button: a "#main" link
 * would be taken for a route by the hash router.
 */
function SkipLink() {
  return (
    <button
      type="button"
      className="lfn-skip-link"
      onClick={() => document.getElementById('main-content')?.focus()}
    >
      Skip to content
    </button>
  );
}

/** Notifications about the signed-in user's own runs (when they turned them on). */
function RunNotifications({ username }: { username: string }) {
  const mine = useRuns({ owner: username }, 5000);
  const open = useCallback((runId: string) => navigate({ page: 'live', runId }), []);
  useRunNotifications(mine.data, open);
  return null;
}

const CLASSROOM_NAV: typeof NAV = [
  { route: { page: 'classroom', path: ['assignments'] }, label: 'Assignments', match: [] },
  {
    route: { page: 'classroom', path: ['classes'] },
    label: 'Classes',
    roles: ['instructor', 'admin'],
    match: [],
  },
  { route: { page: 'classroom', path: ['account'] }, label: 'Account', match: [] },
];

/** Classroom entries share one page: the first part of the path tells them apart. */
const isCurrent = (n: (typeof NAV)[number], route: Route) =>
  n.route.page === 'classroom'
    ? route.page === 'classroom' && (route.path[0] ?? 'assignments') === n.route.path[0]
    : n.match.includes(route.page);

const NAV: { route: Route; label: string; roles?: string[]; match: Route['page'][] }[] = [
  { route: { page: 'designer' }, label: 'Designer', match: ['designer'] },
  { route: { page: 'presets' }, label: 'Paper presets', match: ['presets'] },
  { route: { page: 'runs' }, label: 'Runs', match: ['runs', 'live', 'results'] },
  { route: { page: 'compare', runIds: [] }, label: 'Compare', match: ['compare'] },
  { route: { page: 'campaigns' }, label: 'Campaigns', match: ['campaigns'] },
  { route: { page: 'labs' }, label: 'Labs', match: ['labs'] },
  { route: { page: 'class' }, label: 'Class runs', roles: ['instructor', 'admin'], match: ['class'] },
  { route: { page: 'admin' }, label: 'Users & quotas', roles: ['admin', 'instructor'], match: ['admin'] },
  ...CLASSROOM_NAV,
];

export function App() {
  const { user, loading, logout } = useSession();
  const route = useRoute();
  const [navOpen, { toggle, close }] = useDisclosure(false);
  useDrawerDismiss(navOpen, close);
  const notify = useNotificationsOn();
  const [generation, setGeneration] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new generation means fresh imports
  const pages = useMemo(() => makePages(), [generation]);
  const retryPage = useCallback(() => setGeneration((g) => g + 1), []);

  if (loading) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (!user) return <LoginPage />;

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 190, breakpoint: 'sm', collapsed: { mobile: !navOpen } }}
      padding="md"
    >
      <AppShell.Header>
        <SkipLink />
        <HeaderBar navOpen={navOpen} toggleNav={toggle} />
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation">
        <ScrollArea>
          {NAV.filter((n) => !n.roles || n.roles.includes(user.role)).map((n) => (
            <NavLink
              key={n.label}
              href={hrefOf(n.route)}
              label={n.label}
              active={isCurrent(n, route)}
              onClick={close}
              aria-current={isCurrent(n, route) ? 'page' : undefined}
            />
          ))}
          <NavLink component="button" label="Log out" hiddenFrom="sm" onClick={() => void logout()} />
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main id="main-content" tabIndex={-1} style={{ outline: 'none' }}>
        <ConnectionBanner />
        {notify && <RunNotifications username={user.username} />}
        <PageBoundary onRetry={retryPage} resetKey={hrefOf(route)}>
          <Suspense
            fallback={
              <Center p="xl">
                <Loader aria-label="Loading page" />
              </Center>
            }
          >
            <Page route={route} pages={pages} />
          </Suspense>
        </PageBoundary>
      </AppShell.Main>
    </AppShell>
  );
}
