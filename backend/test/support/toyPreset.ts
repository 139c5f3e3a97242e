// The campaign behind the hand-made presets that judging tests use: three stacks on two paths, two
// flows (`test` and `other`), so a table of stacks by path and claims across both can be written.
export const toyCampaign = `
name: toy
base:
  name: toy
  duration: 60s
  paths: { main: { rtt: 50ms, rate: 100Mbit } }
  flows: [{ name: test, stack: reno }, { name: other, stack: reno }]
vary:
  flows[0].stack: [reno, cubic, bic]
  paths.main.rtt: [50ms, 100ms]
`;
