// The ways a usage report can be grouped. Node-free: the usage schema, which the web UI's typecheck
// reads, takes them from here.
export const GROUP_BY = ['agent', 'provider', 'model', 'channel', 'account', 'user', 'day'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
