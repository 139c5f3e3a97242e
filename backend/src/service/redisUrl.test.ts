import { describe, expect, it } from 'vitest';
import { isRedisUrl, redisUrlForDisplay, withRedisPassword } from './redisUrl.js';

describe('Redis URLs', () => {
  it('accept redis:// and rediss:// with a host, credentials and a database number only', () => {
    expect(
      ['redis://127.0.0.1:6379', 'rediss://lab:pw@redis.example:6380/2', 'redis://u@h'].map(isRedisUrl),
    ).toEqual([true, true, true]);
    expect(['http://h:1', 'redis://', 'redis://h:1/x', 'h:6379'].map(isRedisUrl)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('take the password from the environment only when the URL names none', () => {
    expect(withRedisPassword('redis://lfnlab@127.0.0.1:6379', 's3cr:t')).toBe(
      'redis://lfnlab:s3cr%3At@127.0.0.1:6379',
    );
    expect(withRedisPassword('redis://lfnlab:given@h:1', 'other')).toBe('redis://lfnlab:given@h:1');
    expect(withRedisPassword('redis://h:1', undefined)).toBe('redis://h:1');
  });

  it('never show a password', () => {
    expect(redisUrlForDisplay('rediss://lab:hunter2@h:6380/1')).toBe('rediss://lab:***@h:6380/1');
    expect(redisUrlForDisplay('redis://h:1')).toBe('redis://h:1');
  });
});
