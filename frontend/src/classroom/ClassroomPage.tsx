// The classroom's pages under one route (`#/classroom/...`): assignments for everyone, the class
// table and class management for instructors, and the account page (password, API tokens).
import { Center, Loader } from '@mantine/core';
import { lazy, Suspense } from 'react';

const AssignmentsPage = lazy(() => import('./AssignmentsPage').then((m) => ({ default: m.AssignmentsPage })));
const AssignmentPage = lazy(() => import('./AssignmentPage').then((m) => ({ default: m.AssignmentPage })));
const ClassTablePage = lazy(() => import('./ClassTablePage').then((m) => ({ default: m.ClassTablePage })));
const ClassesPage = lazy(() => import('../admin/ClassesPage').then((m) => ({ default: m.ClassesPage })));
const ClassPage = lazy(() => import('../admin/ClassPage').then((m) => ({ default: m.ClassPage })));
const AccountPage = lazy(() => import('../account/AccountPage').then((m) => ({ default: m.AccountPage })));

function Choose({ path }: { path: string[] }) {
  const [section, id, sub] = path;
  if (section === 'classes') return id ? <ClassPage key={id} classId={id} /> : <ClassesPage />;
  if (section === 'account') return <AccountPage />;
  if (id && sub === 'table') return <ClassTablePage key={id} assignmentId={id} />;
  if (id) return <AssignmentPage key={id} assignmentId={id} />;
  return <AssignmentsPage />;
}

export function ClassroomPage({ path }: { path: string[] }) {
  return (
    <Suspense
      fallback={
        <Center p="xl">
          <Loader aria-label="Loading page" />
        </Center>
      }
    >
      <Choose path={path} />
    </Suspense>
  );
}
