// The classroom's part of docs/API.md as the browser uses it: classes, sheets, assignments, the
// class table, and the caller's own password and API tokens. Types come from the backend, type-only.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, patch, post, put } from '../api/client';
import type { Quota, Run } from '../api/types';

export type { Assignment, Submission } from '@lfnlab/backend-types/classroom/assignmentStore.js';
export type { CheckpointGrade, Grade, StudentState } from '@lfnlab/backend-types/classroom/grading.js';
export type { Sheet, SheetField } from '@lfnlab/backend-types/classroom/sheet.js';

import type { Assignment, Submission } from '@lfnlab/backend-types/classroom/assignmentStore.js';
import type { Grade } from '@lfnlab/backend-types/classroom/grading.js';
import type { Sheet } from '@lfnlab/backend-types/classroom/sheet.js';

export interface ClassSummary {
  id: string;
  name: string;
  instructors: { id: string; username: string }[];
  students: number;
  quota: Quota | null;
  createdAt: string;
}
export interface ClassDetail extends ClassSummary {
  roster: { id: string; username: string; display: string | null }[];
  roleQuota: Quota;
}
export interface IssuedPassword {
  id: string;
  username: string;
  display: string | null;
  password: string;
}
export interface AssignmentListItem {
  id: string;
  classId: string;
  className: string;
  title: string;
  summary: string;
  basedOn: string | null;
  publishedAt: string;
  due: string | null;
  mine: { state: Grade['state']; score: number; maxScore: number } | null;
}
export interface AssignmentView {
  assignment: Assignment;
  template: { text: string; values: Record<string, number | string | null> };
  submission: Submission | null;
  grade: Grade | null;
}
export interface TableRow {
  studentId: string;
  username: string;
  display: string | null;
  grade: Grade;
  prediction: string | null;
  answers: Record<string, string>;
}
export interface TokenInfo {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const enc = encodeURIComponent;

export const classroomKeys = {
  classes: ['classes'] as const,
  class: (id: string) => ['classes', id] as const,
  sheets: ['sheets'] as const,
  assignments: ['assignments'] as const,
  assignment: (id: string) => ['assignments', id] as const,
  table: (id: string) => ['assignments', id, 'table'] as const,
  tokens: ['tokens'] as const,
};

export const useClasses = (enabled = true) =>
  useQuery({ queryKey: classroomKeys.classes, queryFn: () => get<ClassSummary[]>('/api/classes'), enabled });

export const useClass = (id: string) =>
  useQuery({ queryKey: classroomKeys.class(id), queryFn: () => get<ClassDetail>(`/api/classes/${enc(id)}`) });

export function useCreateClass() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => post<ClassSummary>('/api/classes', { name }),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.classes }),
  });
}

export function useSetClassQuota(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (quota: Quota | null) => patch<ClassDetail>(`/api/classes/${enc(id)}`, { quota }),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.classes }),
  });
}

export function useSetClassInstructors(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (instructors: string[]) => patch<ClassDetail>(`/api/classes/${enc(id)}`, { instructors }),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.classes }),
  });
}

export function useImportStudents(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (csv: string) =>
      post<{ className: string; created: IssuedPassword[] }>(`/api/classes/${enc(id)}/students`, { csv }),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.classes }),
  });
}

export const useResetPassword = (classId: string) =>
  useMutation({
    mutationFn: (userId: string) =>
      post<IssuedPassword>(`/api/classes/${enc(classId)}/students/${enc(userId)}/password`),
  });

export const useSheets = (enabled = true) =>
  useQuery({ queryKey: classroomKeys.sheets, queryFn: () => get<Sheet[]>('/api/sheets'), enabled });

export interface CheckpointLanguage {
  functions: { name: string; args: string; doc: string }[];
  names: { name: string; doc: string }[];
  operators: string[];
  examples: string[];
}

export const useCheckpointLanguage = (enabled: boolean) =>
  useQuery({
    queryKey: ['sheets', 'checkpoint-language'],
    queryFn: () => get<CheckpointLanguage>('/api/sheets/checkpoint-language'),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });

export const useAssignments = () =>
  useQuery({
    queryKey: classroomKeys.assignments,
    queryFn: () => get<AssignmentListItem[]>('/api/assignments'),
    refetchInterval: 10_000,
  });

export function usePublish() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: ({ sheetId: string } | { sheet: Sheet }) & { classId: string; due?: string }) =>
      post<Assignment>('/api/assignments', b),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.assignments }),
  });
}

/** Polls while a run of the student's is queued or running, so checkpoints appear when it ends. */
export const useAssignment = (id: string) =>
  useQuery({
    queryKey: classroomKeys.assignment(id),
    queryFn: () => get<AssignmentView>(`/api/assignments/${enc(id)}`),
    refetchInterval: (q) => (q.state.data?.grade?.state === 'waiting' ? 2000 : false),
  });

export function useLaunch(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: { prediction: string; values: Record<string, number | string> }) =>
      post<Run & { submission: Submission }>(`/api/assignments/${enc(id)}/runs`, b),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['assignments'] }),
  });
}

export function useSaveAnswers(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (answers: Record<string, string>) =>
      put<Submission>(`/api/assignments/${enc(id)}/answers`, { answers }),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.assignment(id) }),
  });
}

export const useClassTable = (id: string) =>
  useQuery({
    queryKey: classroomKeys.table(id),
    queryFn: () => get<{ assignment: Assignment; rows: TableRow[] }>(`/api/assignments/${enc(id)}/table`),
    refetchInterval: 5000,
  });

export const tableCsvUrl = (id: string) => `/api/assignments/${enc(id)}/table/csv`;

export const useTokens = () =>
  useQuery({ queryKey: classroomKeys.tokens, queryFn: () => get<TokenInfo[]>('/api/tokens') });

export function useCreateToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => post<{ id: string; name: string; token: string }>('/api/tokens', { name }),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.tokens }),
  });
}

export function useRevokeToken() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => del<unknown>(`/api/tokens/${enc(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: classroomKeys.tokens }),
  });
}

export const useChangePassword = (userId: string) =>
  useMutation({
    mutationFn: (b: { currentPassword: string; password: string }) =>
      patch<unknown>(`/api/users/${enc(userId)}`, b),
  });
