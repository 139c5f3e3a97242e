// Classes and assignments over the API: classes are records (a typo makes no class), a CSV list
// becomes students with working generated passwords, a sheet is published, a student predicts,
// runs and answers, and the class table grades them; every cross-class reach is refused.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminClient,
  type Client,
  login,
  passwordOf,
  runEnded,
  type TestServer,
  testServer,
  userClient,
} from '../../test/support/testkit.js';

let s: TestServer;
let admin: Client;
let teacherA: Client;
let teacherB: Client;
let classA: { id: string; name: string };
let classB: { id: string; name: string };

interface Issued {
  id: string;
  username: string;
  display: string | null;
  password: string;
}

beforeAll(async () => {
  s = await testServer({ fake: { timeScale: 60 } });
  admin = await adminClient(s);
  teacherA = await userClient(s, admin, 'teach-a', 'instructor');
  teacherB = await userClient(s, admin, 'teach-b', 'instructor');
  classA = await teacherA.json('POST', '/api/classes', { name: 'net101' });
  classB = await teacherB.json('POST', '/api/classes', { name: 'net202' });
});
afterAll(async () => {
  await s.close();
});

describe('classes', () => {
  it('a user’s class must exist: a typo is a 400 naming class and the classes there are', async () => {
    const r = await admin.req('POST', '/api/users', {
      username: 'typo',
      password: 'long-enough-pw-42',
      role: 'student',
      class: 'net1O1',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().problems[0].path).toBe('class');
    expect(r.json().problems[0].message).toContain('net101');
    expect((await admin.req('PATCH', `/api/users/${classA.id}`, { class: 'nope' })).statusCode).toBe(400);
  });

  it('instructors list and open only the classes they teach', async () => {
    const mine = await teacherA.json<{ name: string }[]>('GET', '/api/classes');
    expect(mine.map((c) => c.name)).toEqual(['net101']);
    expect((await teacherA.req('GET', `/api/classes/${classB.id}`)).statusCode).toBe(404);
    expect((await teacherA.req('PATCH', `/api/classes/${classB.id}`, { quota: null })).statusCode).toBe(404);
    const all = await admin.json<{ name: string }[]>('GET', '/api/classes');
    expect(all.map((c) => c.name).sort()).toEqual(['net101', 'net202']);
  });

  it('imports a CSV list all or nothing, naming each bad line', async () => {
    const bad = await teacherA.req('POST', `/api/classes/${classA.id}/students`, {
      csv: 'username,display\nann,Ann A\nb c,Bad Name\nann,Again\n',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().problems).toEqual([
      { path: 'csv', message: expect.stringMatching(/^line 3: username "b c" must be/) },
      { path: 'csv', message: 'line 4: username ann is also on line 2' },
    ]);
    expect(
      (await admin.json<{ username: string }[]>('GET', '/api/users')).map((u) => u.username),
    ).not.toContain('ann');
  });

  it('imports 30 students whose generated passwords sign in; a reset password replaces the old', async () => {
    const csv = [
      'username,display',
      ...Array.from({ length: 30 }, (_, i) => `st${i + 1},"Student, ${i + 1}"`),
    ].join('\n');
    const r = await teacherA.req('POST', `/api/classes/${classA.id}/students`, { csv });
    expect(r.statusCode).toBe(201);
    const created = r.json().created as Issued[];
    expect(created).toHaveLength(30);
    expect(created[0]).toMatchObject({ username: 'st1', display: 'Student, 1' });
    expect(created[0]?.password).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    await login(s, 'st7', (created[6] as Issued).password);
    const detail = await teacherA.json<{ students: number; roster: unknown[] }>(
      'GET',
      `/api/classes/${classA.id}`,
    );
    expect(detail.students).toBe(30);
    // The teacher's user list shows their class, not the other one.
    const users = await teacherA.json<{ username: string }[]>('GET', '/api/users');
    expect(users.map((u) => u.username)).toContain('st30');

    const again = await teacherA.req('POST', `/api/classes/${classA.id}/students`, { csv: 'st3\nnewone' });
    expect(again.statusCode).toBe(409);
    expect(again.json().problems).toEqual([{ path: 'csv', message: 'line 1: username st3 is taken' }]);

    const st2 = created[1] as Issued;
    expect(
      (await teacherB.req('POST', `/api/classes/${classA.id}/students/${st2.id}/password`)).statusCode,
    ).toBe(404);
    expect(
      (await teacherA.req('POST', `/api/classes/${classB.id}/students/${st2.id}/password`)).statusCode,
    ).toBe(404);
    const reset = await teacherA.json<Issued>(
      'POST',
      `/api/classes/${classA.id}/students/${st2.id}/password`,
    );
    expect(reset.password).not.toBe(st2.password);
    await expect(login(s, 'st2', st2.password)).rejects.toThrow(/401/);
    await login(s, 'st2', reset.password);
  });

  it('a class quota may only tighten the admin’s, and binds the class’s students', async () => {
    const over = await teacherA.req('PATCH', `/api/classes/${classA.id}`, {
      quota: { concurrentRuns: 1, maxDurationS: 999, maxRateMbps: 50, maxFlows: 4 },
    });
    expect(over.statusCode).toBe(400);
    expect(over.json().problems).toEqual([
      { path: 'quota.maxDurationS', message: "must be at most 120 s (the admin's student quota)" },
    ]);
    await teacherA.json('PATCH', `/api/classes/${classA.id}`, {
      quota: { concurrentRuns: 1, maxDurationS: 90, maxRateMbps: 50, maxFlows: 4 },
    });
    const student = await userClient(s, admin, 'quota-kid', 'student', 'net101');
    const r = await student.req('POST', '/api/runs', {
      text: 'name: q\nduration: 100s\npaths: { main: { rtt: 20ms, rate: 80Mbit } }\nflows: [{ stack: reno }]\n',
    });
    expect(r.statusCode).toBe(403);
    expect(
      r
        .json()
        .problems.map((p: { path: string }) => p.path)
        .sort(),
    ).toEqual(['duration', 'paths.main.rate', 'paths.main.reverse.rate']);
    expect((await teacherB.req('PATCH', `/api/classes/${classA.id}`, { quota: null })).statusCode).toBe(404);
    await teacherA.json('PATCH', `/api/classes/${classA.id}`, { quota: null });
  });
});

describe('assignments', () => {
  let assignment: { id: string };
  let kid: Client;
  let outsider: Client;

  beforeAll(async () => {
    kid = await userClient(s, admin, 'kid', 'student', 'net101');
    outsider = await userClient(s, admin, 'outsider', 'student', 'net202');
  });

  it('ships at least three sheets; publishing checks the class can run them', async () => {
    const sheets = await teacherA.json<{ id: string; basedOn: string }[]>('GET', '/api/sheets');
    expect(sheets.map((x) => x.id).sort()).toEqual(['fairness', 'reno-responsiveness', 'reverse-traffic']);
    expect((await kid.req('GET', '/api/sheets')).statusCode).toBe(403);
    // Each shipped sheet fits the default student quota, its fields at their maximum too.
    for (const sheetId of ['fairness', 'reverse-traffic']) {
      const a = await teacherB.json<{ id: string }>('POST', '/api/assignments', {
        classId: classB.id,
        sheetId,
      });
      await teacherB.json('DELETE', `/api/assignments/${a.id}`);
    }
    // Instructor B cannot publish into class A (it is not theirs to see).
    const foreign = await teacherB.req('POST', '/api/assignments', {
      classId: classA.id,
      sheetId: 'fairness',
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().problems[0].path).toBe('classId');
    const unknown = await teacherA.req('POST', '/api/assignments', { classId: classA.id, sheetId: 'nope' });
    expect(unknown.json().problems[0]).toMatchObject({ path: 'sheetId' });
    assignment = await teacherA.json('POST', '/api/assignments', {
      classId: classA.id,
      sheetId: 'reno-responsiveness',
    });
  });

  it('describes the checkpoint language to instructors', async () => {
    const lang = await teacherA.json<{
      functions: { name: string; args: string }[];
      names: { name: string }[];
    }>('GET', '/api/sheets/checkpoint-language');
    expect(lang.functions.map((f) => f.name)).toEqual(
      expect.arrayContaining(['jain', 'share', 'metric', 'theory']),
    );
    expect(lang.functions.find((f) => f.name === 'share')?.args).toBe('flow or stack');
    expect(lang.names.map((n) => n.name)).toEqual(['mss', 'verdict', 'status']);
    expect((await kid.req('GET', '/api/sheets/checkpoint-language')).statusCode).toBe(403);
  });

  it('refuses a sheet whose checkpoint does not parse, naming the checkpoint and the character', async () => {
    const sheet = (await teacherA.json<Record<string, unknown>[]>('GET', '/api/sheets'))[0] as Record<
      string,
      unknown
    >;
    const r = await teacherA.req('POST', '/api/assignments', {
      classId: classA.id,
      sheet: { ...sheet, checkpoints: [{ id: 'x', text: 'broken', check: 'jain( >= 0.9', points: 1 }] },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().problems[0].path).toBe('sheet.checkpoints.0.check');
    expect(r.json().problems[0].message).toMatch(
      /^at character 7: expected a number, a name or "\(", found ">="/,
    );
    const tooBig = await teacherA.req('POST', '/api/assignments', {
      classId: classA.id,
      sheet: {
        ...sheet,
        fields: [{ path: 'paths.main.rate', label: 'Rate', unit: 'Mbit', min: 10, max: 500 }],
      },
    });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json().problems[0].path).toBe('fields.0.max');
  });

  it('students of the class see it; others get 404, and only students hand in', async () => {
    expect((await kid.json<{ id: string }[]>('GET', '/api/assignments')).map((a) => a.id)).toEqual([
      assignment.id,
    ]);
    expect(await outsider.json('GET', '/api/assignments')).toEqual([]);
    expect((await outsider.req('GET', `/api/assignments/${assignment.id}`)).statusCode).toBe(404);
    expect(
      (await outsider.req('POST', `/api/assignments/${assignment.id}/runs`, { prediction: 'x' })).statusCode,
    ).toBe(404);
    expect(
      (await outsider.req('PUT', `/api/assignments/${assignment.id}/answers`, { answers: {} })).statusCode,
    ).toBe(404);
    expect((await teacherB.req('GET', `/api/assignments/${assignment.id}/table`)).statusCode).toBe(404);
    expect((await kid.req('GET', `/api/assignments/${assignment.id}/table`)).statusCode).toBe(403);
    expect(
      (await teacherA.req('POST', `/api/assignments/${assignment.id}/runs`, { prediction: 'x' })).statusCode,
    ).toBe(403);
  });

  it('predict, then run: the prediction is required and values must be the sheet’s fields within range', async () => {
    const view = await kid.json<{ template: { values: Record<string, unknown> } }>(
      'GET',
      `/api/assignments/${assignment.id}`,
    );
    expect(view.template.values).toEqual({ 'paths.main.rtt': 40, 'paths.main.rate': 50 });
    const url = `/api/assignments/${assignment.id}/runs`;
    const noPrediction = await kid.req('POST', url, { prediction: '  ' });
    expect(noPrediction.json().problems).toEqual([
      { path: 'prediction', message: 'write your prediction before you run' },
    ]);
    const bad = await kid.req('POST', url, {
      prediction: 'about 3 s',
      values: { 'paths.main.rtt': 500, 'flows.0.stack': 'cubic' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().problems).toEqual([
      { path: 'values.paths.main.rtt', message: 'must be a number from 10 to 80 ms' },
      {
        path: 'values.flows.0.stack',
        message: 'may not be changed in this sheet (changeable: paths.main.rtt, paths.main.rate)',
      },
    ]);
  });

  it('grades a student’s run in the class table and the CSV', async () => {
    const started = await kid.json<{ id: string; spec: { paths: Record<string, { rtt: number }> } }>(
      'POST',
      `/api/assignments/${assignment.id}/runs`,
      { prediction: 'about 3.5 s', values: { 'paths.main.rtt': 30 } },
    );
    expect(started.spec.paths.main?.rtt).toBe(30);
    await runEnded(s, started.id);
    await kid.json('PUT', `/api/assignments/${assignment.id}/answers`, {
      answers: { measured: 'close to 2 s' },
    });
    const unknownQ = await kid.req('PUT', `/api/assignments/${assignment.id}/answers`, {
      answers: { zz: 'x' },
    });
    expect(unknownQ.json().problems[0].path).toBe('answers.zz');

    const table = await teacherA.json<{
      rows: {
        username: string;
        grade: { state: string; runs: number; checkpoints: unknown[]; maxScore: number; answered: number };
      }[];
    }>('GET', `/api/assignments/${assignment.id}/table`);
    expect(table.rows).toHaveLength(32); // 30 imported, quota-kid, kid
    const row = table.rows.find((r) => r.username === 'kid');
    expect(row?.grade).toMatchObject({ state: 'graded', runs: 1, maxScore: 4, answered: 1 });
    // Judged on the run; the fake lab's sawtooth has no loss recoveries, so that one says why it is n/a.
    expect(row?.grade.checkpoints).toEqual([
      { id: 'link-busy', passed: true, points: 1, detail: expect.stringMatching(/^0\.\d+ >= 0\.6$/) },
      {
        id: 'recovery-law',
        passed: null,
        points: 0,
        detail: 'not measurable: recovery.time of reno was not measured',
      },
      { id: 'valid-run', passed: true, points: 1, detail: '"valid" == "valid"' },
    ]);
    expect(table.rows.find((r) => r.username === 'st1')?.grade.state).toBe('not started');

    const mine = await kid.json<{ mine: { state: string } }[]>('GET', '/api/assignments');
    expect(mine[0]?.mine.state).toBe('graded');

    const csv = await teacherA.req('GET', `/api/assignments/${assignment.id}/table/csv`);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toContain('check_recovery-law');
    expect(lines).toHaveLength(33);
    expect(lines.find((l) => l.startsWith('kid,'))).toContain('about 3.5 s');
  });

  it('a stopped run shows the student as stuck, with the reason', async () => {
    const started = await kid.json<{ id: string }>('POST', `/api/assignments/${assignment.id}/runs`, {
      prediction: 'again',
    });
    await kid.json('POST', `/api/runs/${started.id}/stop`);
    await runEnded(s, started.id);
    const table = await teacherA.json<{
      rows: { username: string; grade: { state: string; stuckReason: string } }[];
    }>('GET', `/api/assignments/${assignment.id}/table`);
    const row = table.rows.find((r) => r.username === 'kid');
    expect(row?.grade.state).toBe('stuck');
    expect(row?.grade.stuckReason).toMatch(/aborted/);
  });

  it('the instructor of another class cannot withdraw it; its own can', async () => {
    expect((await teacherB.req('DELETE', `/api/assignments/${assignment.id}`)).statusCode).toBe(404);
    expect((await kid.req('DELETE', `/api/assignments/${assignment.id}`)).statusCode).toBe(403);
    await teacherA.json('DELETE', `/api/assignments/${assignment.id}`);
    expect((await kid.req('GET', `/api/assignments/${assignment.id}`)).statusCode).toBe(404);
  });
});

describe('runs and classes', () => {
  it('an instructor sees and stops the runs of the classes they teach, not of others', async () => {
    const ann = await userClient(s, admin, 'ann-runs', 'student', 'net101');
    const run = await ann.json<{ id: string }>('POST', '/api/runs', {
      text: 'name: r\nduration: 4s\npaths: { main: { rtt: 20ms, rate: 20Mbit } }\nflows: [{ stack: reno }]\n',
    });
    expect((await teacherA.req('GET', `/api/runs/${run.id}`)).statusCode).toBe(200);
    expect((await teacherB.req('GET', `/api/runs/${run.id}`)).statusCode).toBe(404);
    expect((await teacherB.req('POST', `/api/runs/${run.id}/stop`)).statusCode).toBe(404);
    await runEnded(s, run.id);
  });
});

describe('upgrade from free-text classes', () => {
  it('makes a class record for each class name users had, with the instructors who had it', async () => {
    const old = await testServer({ fake: { timeScale: 60 } });
    const oldAdmin = await adminClient(old);
    await userClient(old, oldAdmin, 'old-teach', 'instructor', 'old101');
    await userClient(old, oldAdmin, 'old-kid', 'student', 'old101');
    await old.close();
    // Before classes were records there was no classes.json.
    rmSync(join(old.dirs.data, 'classes.json'));
    const again = await testServer({ dirs: old.dirs, fake: { timeScale: 60 } });
    try {
      const teacher = await login(again, 'old-teach', passwordOf('old-teach'));
      const mine = await teacher.json<
        { name: string; students: number; instructors: { username: string }[] }[]
      >('GET', '/api/classes');
      expect(mine).toEqual([
        expect.objectContaining({
          name: 'old101',
          students: 1,
          instructors: [expect.objectContaining({ username: 'old-teach' })],
        }),
      ]);
    } finally {
      await again.close();
    }
  });
});
