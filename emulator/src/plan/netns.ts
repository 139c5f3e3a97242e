// One home for running a command inside a host's network namespace: every plan step is an argv
// list in iproute2's own words.

/** `ip netns exec NS argv…` */
export const inNs = (ns: string, argv: string[]): string[] => ['ip', 'netns', 'exec', ns, ...argv];
