import { EventEmitter } from 'node:events';
import type { Channel } from '@lfnlab/lab-images';
import { describe, expect, it } from 'vitest';
import { LabSession } from './session.js';

/** Only what LabSession uses of a channel: its events. */
const fakeChannel = () => new EventEmitter() as unknown as Channel;

describe('LabSession when the lab goes away', () => {
  it('rejects the exits it waits for, so a run cannot hang (or end silently) on a dead lab', async () => {
    const ch = fakeChannel();
    const session = new LabSession(ch);
    const flow = session.exited('client-f1');
    ch.emit('exit', { name: 'sampler', code: 0, signal: '', ms: 1, stderr: '' });
    ch.emit('close', new Error('control channel closed'));
    await expect(flow).rejects.toThrow('control channel closed');
    await expect(session.exited('sampler')).resolves.toMatchObject({ code: 0 });
    expect(session.lost?.message).toBe('control channel closed');
  });
  it('rejects an exit asked for after the loss', async () => {
    const ch = fakeChannel();
    const session = new LabSession(ch);
    ch.emit('close', new Error('gone'));
    await expect(session.exited('late')).rejects.toThrow('gone');
  });
});
