import { registerStacks } from '@lfnlab/emulator';
import type { LabImage } from '@lfnlab/lab-images';
import { describe, expect, it } from 'vitest';
import { type AgentInfo, addedStacksRecord, missingStacksMessage } from './labSetup.js';

const added = {
  name: 'lfnvendor',
  module: 'tcp_lfnvendor',
  family: 'loss' as const,
  sourceHash: 'ab'.repeat(32),
  origin: 'added' as const,
  from: '/src/vendor',
  file: 'extra/tcp_lfnvendor.ko',
  sha256: 'cd'.repeat(32),
};
const image = {
  manifest: { stacks: { sourceHash: 'x', modules: [], added: [added] } },
} as unknown as LabImage;
const info = (modules: AgentInfo['modules']): AgentInfo => ({
  kernel: '6.1.0-56-amd64',
  stacksAvailable: ['reno', 'cubic'],
  boot: { modules: [] },
  modules,
});

describe("a run's record of added stacks (environment.json addedStacks)", () => {
  it('names the module with its source hash, origin and the sha256 the lab loaded', () => {
    const rec = addedStacksRecord(image, info([{ name: 'tcp_lfnvendor', sha256: 'cd'.repeat(32) }]));
    expect(rec).toEqual([{ ...added, loaded: true, loadedSha256: 'cd'.repeat(32) }]);
    expect(addedStacksRecord(image, info([]))[0]).toMatchObject({ loaded: false, loadedSha256: null });
    expect(addedStacksRecord({ manifest: {} } as unknown as LabImage, info([]))).toEqual([]);
  });

  it('says when an added stack is missing from the lab because its image predates it', () => {
    registerStacks([added]);
    try {
      expect(missingStacksMessage(['lfnvendor'], info([]))).toBe(
        "the lab kernel has no lfnvendor (added with 'lfnlab stack add' but not in this lab's image); it offers reno, cubic",
      );
    } finally {
      registerStacks([]);
    }
  });
});
