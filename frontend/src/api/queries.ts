// TanStack Query hooks, one per resource of docs/API.md. Query keys are arrays starting with the
// resource so a mutation can invalidate a whole family.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { del, get, patch, post, put } from './client';
import type {
  Lab,
  MoveTo,
  Preset,
  PresetFindingsView,
  PresetPick,
  PresetPlanView,
  QueueBoard,
  Quota,
  Quotas,
  ReplayedSamples,
  Role,
  Run,
  RunRecordView,
  RunSummary,
  StackListing,
  StoredSpec,
  User,
  WorkerStatus,
} from './types';

export const keys = {
  labs: ['labs'] as const,
  stacks: ['stacks'] as const,
  presets: ['presets'] as const,
  preset: (id: string) => ['presets', id] as const,
  presetFindings: (id: string) => ['presets', id, 'findings'] as const,
  presetPlan: (id: string, pick: PresetPick) => ['presets', id, 'plan', pick] as const,
  runs: (filter: Record<string, string> = {}) => ['runs', filter] as const,
  run: (id: string) => ['run', id] as const,
  summary: (id: string) => ['summary', id] as const,
  record: (id: string) => ['record', id] as const,
  specs: ['specs'] as const,
  users: ['users'] as const,
  quotas: ['quotas'] as const,
  queue: ['queue'] as const,
  samples: (id: string) => ['samples', id] as const,
  health: ['health'] as const,
};

/** How often the header polls the lab: fast while a run of the viewer's is queued or running. */
export const LAB_POLL_MS = { active: 1000, idle: 5000 } as const;

export function useLabs(enabled = true, active = false) {
  // Lab state changes under us (boot, busy): poll gently, closely while something of ours runs.
  return useQuery({
    queryKey: keys.labs,
    queryFn: () => get<Lab[]>('/api/labs'),
    refetchInterval: active ? LAB_POLL_MS.active : LAB_POLL_MS.idle,
    enabled,
  });
}

/** The service's stacks (built in and added): they change only when `lfnlab serve` restarts. */
export const useStacks = () =>
  useQuery({ queryKey: keys.stacks, queryFn: () => get<StackListing[]>('/api/stacks'), staleTime: Infinity });

/** The queue board: what runs and waits on each lab. */
export const useQueueBoard = (refetchMs: number | false = 3000) =>
  useQuery({
    queryKey: keys.queue,
    queryFn: () => get<QueueBoard>('/api/queue'),
    refetchInterval: refetchMs,
  });

export function useMoveRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, to }: { id: string; to: MoveTo }) =>
      post<Run>(`/api/runs/${encodeURIComponent(id)}/move`, { to }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['runs'] });
      void qc.invalidateQueries({ queryKey: keys.queue });
    },
  });
}

/** A finished run's chart samples (GET /api/runs/:id/samples). */
export const useReplay = (id: string, enabled: boolean) =>
  useQuery({
    queryKey: keys.samples(id),
    queryFn: () => get<ReplayedSamples>(`/api/runs/${encodeURIComponent(id)}/samples`),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });

/** GET /api/health as the labs page reads it: the service's labs and its workers, polled. */
export interface HealthView {
  ok: boolean;
  influx: 'up' | 'down' | 'off';
  queue: number;
  labs: Array<{ name: string; state: string }>;
  workers: WorkerStatus[];
}

export const useWorkers = (refetchMs = 5000) =>
  useQuery({
    queryKey: [...keys.health, 'workers'] as const,
    queryFn: () => get<HealthView>('/api/health'),
    refetchInterval: refetchMs,
  });

export const useHealth = () =>
  useQuery({
    queryKey: keys.health,
    queryFn: () => get<{ influx: 'up' | 'down' | 'off'; queue: number }>('/api/health'),
    staleTime: 60_000,
  });

export const usePresets = () =>
  useQuery({ queryKey: keys.presets, queryFn: () => get<Preset[]>('/api/presets') });

export const usePreset = (id: string | null) =>
  useQuery({
    queryKey: keys.preset(id ?? ''),
    queryFn: () => get<Preset>(`/api/presets/${encodeURIComponent(id ?? '')}`),
    enabled: Boolean(id),
  });

/** The preset's findings, decided on my newest results or the committed ones. */
export const usePresetFindings = (id: string) =>
  useQuery({
    queryKey: keys.presetFindings(id),
    queryFn: () => get<PresetFindingsView>(`/api/presets/${encodeURIComponent(id)}/findings`),
    // A run of the preset may have ended since: coming back to the gallery asks again.
    refetchOnMount: 'always',
  });

/** What a pick of the preset starts, costs, and whether it fits my quota (the last answer stays while the next loads). */
export const usePresetPlan = (id: string, pick: PresetPick, enabled = true) =>
  useQuery({
    queryKey: keys.presetPlan(id, pick),
    queryFn: () => post<PresetPlanView>(`/api/presets/${encodeURIComponent(id)}/plan`, pick),
    placeholderData: keepPreviousData,
    enabled,
    retry: false,
  });

export function useRuns(filter: Record<string, string> = {}, refetchMs: number | false = 5000) {
  const qs = new URLSearchParams(Object.entries(filter).filter(([, v]) => v)).toString();
  return useQuery({
    queryKey: keys.runs(filter),
    queryFn: async () => (await get<{ runs: Run[] }>(`/api/runs${qs ? `?${qs}` : ''}`)).runs,
    refetchInterval: refetchMs,
  });
}

type Refetch = number | false | ((q: { state: { data?: Run } }) => number | false);

export function useRun(id: string, refetchMs: Refetch = false) {
  return useQuery({
    queryKey: keys.run(id),
    queryFn: () => get<Run>(`/api/runs/${encodeURIComponent(id)}`),
    refetchInterval: refetchMs,
  });
}

/** The run's record (environment and the other files it was set up from); it does not change. */
export function useRunRecord(id: string, enabled = true) {
  return useQuery({
    queryKey: keys.record(id),
    queryFn: () => get<RunRecordView>(`/api/runs/${encodeURIComponent(id)}/record`),
    enabled,
    retry: 1,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useSummary(id: string, enabled = true) {
  return useQuery({
    queryKey: keys.summary(id),
    queryFn: () => get<RunSummary>(`/api/runs/${encodeURIComponent(id)}/summary`),
    enabled,
    retry: 1,
  });
}

export type StartRun = { text: string } | { specId: string } | ({ preset: string } & PresetPick);

export function useStartRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: StartRun) => post<Run>('/api/runs', body),
    onSuccess: (_r, body) => {
      void qc.invalidateQueries({ queryKey: ['runs'] });
      // A preset run changes what fits the quota now (runs queued) and, once done, the findings.
      if ('preset' in body) void qc.invalidateQueries({ queryKey: keys.preset(body.preset) });
    },
  });
}

export function useStopRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => post<unknown>(`/api/runs/${encodeURIComponent(id)}/stop`),
    onSuccess: (_d, id) => {
      void qc.invalidateQueries({ queryKey: keys.run(id) });
      void qc.invalidateQueries({ queryKey: ['runs'] });
      void qc.invalidateQueries({ queryKey: keys.queue });
    },
  });
}

export const useSpecs = () =>
  useQuery({ queryKey: keys.specs, queryFn: () => get<StoredSpec[]>('/api/specs') });

export function useSaveSpec() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (s: { id?: string; name: string; kind: 'spec' | 'campaign'; text: string }) =>
      s.id
        ? put<StoredSpec>(`/api/specs/${encodeURIComponent(s.id)}`, {
            name: s.name,
            kind: s.kind,
            text: s.text,
          })
        : post<StoredSpec>('/api/specs', { name: s.name, kind: s.kind, text: s.text }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.specs }),
  });
}

export function useDuplicateSpec() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => post<StoredSpec>(`/api/specs/${encodeURIComponent(id)}/duplicate`),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.specs }),
  });
}

export function useDeleteSpec() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => del<unknown>(`/api/specs/${encodeURIComponent(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.specs }),
  });
}

export const useUsers = (enabled = true) =>
  useQuery({
    queryKey: keys.users,
    queryFn: () => get<User[] | { users: User[] }>('/api/users'),
    enabled,
    select: listOf,
  });

/** The service may wrap lists ({ users: [...] }); accept both. */
function listOf<T>(x: T[] | Record<string, T[]>): T[] {
  return Array.isArray(x) ? x : (Object.values(x).find(Array.isArray) ?? []);
}

export function useCreateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (u: { username: string; password: string; role: Role; class?: string }) =>
      post<User>('/api/users', u),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.users }),
  });
}

export function useUpdateUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...changes }: { id: string; role?: Role; class?: string | null; password?: string }) =>
      patch<User>(`/api/users/${encodeURIComponent(id)}`, changes),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.users }),
  });
}

export function useDeleteUser() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => del<unknown>(`/api/users/${encodeURIComponent(id)}`),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.users }),
  });
}

export const useQuotas = (enabled = true) =>
  useQuery({ queryKey: keys.quotas, queryFn: () => get<Quotas>('/api/quotas'), enabled });

export function useSetQuota() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ role, quota }: { role: Role; quota: Quota }) => put<Quota>(`/api/quotas/${role}`, quota),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.quotas }),
  });
}

export const grafanaUrl = (id: string) => get<{ url: string }>(`/api/runs/${encodeURIComponent(id)}/grafana`);
