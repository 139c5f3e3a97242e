// The shell: header, navigation by role, and the page for the current hash route. Pages are
// loaded on demand so the first paint (log in, header) stays small.
import { AppShell, Center, Loader, NavLink, ScrollArea } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense } from 'react';
import { LoginPage } from '../auth/LoginPage';
import { useSession } from '../auth/session';
import { HeaderBar } from './HeaderBar';
import { hrefOf, type Route, useRoute } from './router';

const DesignerPage = lazy(() =>
  import('../designer/DesignerPage').then((m) => ({ default: m.DesignerPage })),
);
const PresetsPage = lazy(() => import('../presets/PresetsPage').then((m) => ({ default: m.PresetsPage })));
const RunsPage = lazy(() => import('../runs/RunsPage').then((m) => ({ default: m.RunsPage })));
const LivePage = lazy(() => import('../live/LivePage').then((m) => ({ default: m.LivePage })));
const ResultsPage = lazy(() => import('../results/ResultsPage').then((m) => ({ default: m.ResultsPage })));
const ComparePage = lazy(() => import('../compare/ComparePage').then((m) => ({ default: m.ComparePage })));
const CampaignsPage = lazy(() =>
  import('../campaigns/CampaignsPage').then((m) => ({ default: m.CampaignsPage })),
);
const AdminPage = lazy(() => import('../admin/AdminPage').then((m) => ({ default: m.AdminPage })));
const ChartBenchPage = lazy(() =>
  import('../bench/ChartBenchPage').then((m) => ({ default: m.ChartBenchPage })),
);
const ClassroomPage = lazy(() =>
  import('../classroom/ClassroomPage').then((m) => ({ default: m.ClassroomPage })),
);
const ClassRunsPage = lazy(() =>
  import('../admin/ClassRunsPage').then((m) => ({ default: m.ClassRunsPage })),
);

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'designer':
      return <DesignerPage key={route.specId ?? 'new'} specId={route.specId} />;
    case 'presets':
      return <PresetsPage />;
    case 'runs':
      return <RunsPage />;
    case 'live':
      return <LivePage key={route.runId} runId={route.runId} />;
    case 'results':
      return <ResultsPage key={route.runId} runId={route.runId} />;
    case 'compare':
      return <ComparePage runIds={route.runIds} />;
    case 'campaigns':
      return <CampaignsPage />;
    case 'admin':
      return <AdminPage />;
    case 'class':
      return <ClassRunsPage />;
    case 'bench':
      return <ChartBenchPage />;
    case 'classroom':
      return <ClassroomPage path={route.path} />;
  }
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
  { route: { page: 'class' }, label: 'Class runs', roles: ['instructor', 'admin'], match: ['class'] },
  { route: { page: 'admin' }, label: 'Users & quotas', roles: ['admin', 'instructor'], match: ['admin'] },
  ...CLASSROOM_NAV,
];

export function App() {
  const { user, loading } = useSession();
  const route = useRoute();
  const [navOpen, { toggle, close }] = useDisclosure(false);

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
        </ScrollArea>
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense
          fallback={
            <Center p="xl">
              <Loader aria-label="Loading page" />
            </Center>
          }
        >
          <Page route={route} />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
