// Shapes of the users resource: users with a role (admin or member), a disabled flag and, for
// members, the agents they may chat with; and the security switch (requireAuth).
import { z } from 'zod';
import { idSchema } from '../../core/id-schema.ts';

const password = z
  .string()
  .min(8, 'must be at least 8 characters')
  .max(1024)
  .refine((value) => !value.includes(':'), 'must not contain ":"');
const role = z.enum(['admin', 'member']);

export const userParams = z.object({ name: idSchema });
export const userView = z.object({
  name: z.string(),
  role,
  disabled: z.boolean(),
  /** The agents a member may use; empty for admins, who use every agent. */
  agents: z.array(z.string()),
  hasApiKey: z.boolean(),
});
export const userList = z.object({ data: z.array(userView), total: z.int() });
export const createUserBody = z.strictObject({
  name: idSchema,
  password,
  role: role.default('member'),
  agents: z.array(idSchema).max(1000).default([]),
  disabled: z.boolean().default(false),
});
export const updateUserBody = z
  .strictObject({
    /** A new password (a reset): tokens issued before it stop working. */
    password: password.optional(),
    role: role.optional(),
    agents: z.array(idSchema).max(1000).optional(),
    disabled: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of password, role, agents, disabled');
export const meView = z.object({
  name: z.string().nullable(),
  role,
  agents: z.array(z.string()).nullable(),
  requireAuth: z.boolean(),
});
export const securityView = z.object({
  requireAuth: z.boolean(),
  /** The admin user still has the default password: requireAuth cannot be switched on. */
  defaultAdminPassword: z.boolean(),
});
export const securityBody = z.strictObject({ requireAuth: z.boolean() });

export type UserView = z.infer<typeof userView>;
export type CreateUserBody = z.infer<typeof createUserBody>;
export type UpdateUserBody = z.infer<typeof updateUserBody>;
export type MeView = z.infer<typeof meView>;
export type SecurityView = z.infer<typeof securityView>;
export type UserList = z.infer<typeof userList>;
