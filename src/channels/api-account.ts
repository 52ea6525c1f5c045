// The `api` platform's accounts: keys for applications that call the chat endpoint. It has no
// adapter (the chat endpoint is its inbound side), only these fields.
import { z } from 'zod';
import { platformAccount } from './account-schema.ts';

export const apiAccount = platformAccount({
  platform: 'api',
  label: 'API',
  intro: 'Keys for applications that call the chat endpoint. Each application should get its own account.',
  groups: false,
  fields: {
    api_key: z.string().min(16, 'must be at least 16 characters').max(4096).meta({
      label: 'API key',
      help: 'Left empty on create, a key is generated and shown once. At least 16 characters.',
      secret: true,
    }),
  },
});
