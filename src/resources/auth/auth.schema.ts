// Shapes of the auth resource: log in, the caller's API key, password change.
import { z } from 'zod';

export const loginBody = z.object({
  username: z.string().min(1).max(128),
  password: z.string().min(1).max(1024),
});
export const loginAnswer = z.object({ token: z.string(), expireAt: z.string() });
export const passwordBody = z.object({
  oldPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(8, 'must be at least 8 characters').max(1024),
});
export const passwordAnswer = z.object({ success: z.boolean(), message: z.string() });
export const apiKeyAnswer = z.object({ apiKey: z.string() });

export type LoginBody = z.infer<typeof loginBody>;
export type PasswordBody = z.infer<typeof passwordBody>;
export type LoginAnswer = z.infer<typeof loginAnswer>;
export type ApiKeyAnswer = z.infer<typeof apiKeyAnswer>;
