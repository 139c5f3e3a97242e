import { describe, expect, it } from 'vitest';
import { hrefOf, parseHash } from '../app/router';
import { classroomHref } from './links';

describe('classroom addresses', () => {
  it('every classroom link parses back to the classroom page with its path', () => {
    expect(parseHash(classroomHref.table('a/1'))).toEqual({
      page: 'classroom',
      path: ['assignments', 'a/1', 'table'],
    });
    expect(parseHash(classroomHref.class('c 1'))).toEqual({ page: 'classroom', path: ['classes', 'c 1'] });
    expect(parseHash('#/classroom')).toEqual({ page: 'classroom', path: [] });
    expect(hrefOf({ page: 'classroom', path: ['assignments', 'a/1'] })).toBe(classroomHref.assignment('a/1'));
  });
});
