// Addresses inside the classroom (`#/classroom/...`): one place that spells them.
const part = (s: string) => encodeURIComponent(s);

export const classroomHref = {
  assignments: () => '#/classroom/assignments',
  assignment: (id: string) => `#/classroom/assignments/${part(id)}`,
  table: (id: string) => `#/classroom/assignments/${part(id)}/table`,
  classes: () => '#/classroom/classes',
  class: (id: string) => `#/classroom/classes/${part(id)}`,
  account: () => '#/classroom/account',
};
