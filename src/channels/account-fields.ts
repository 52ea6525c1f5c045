// Which of the platform-specific account fields each platform takes. An account that sets another
// platform's field is refused on create and update, so a mistake shows at once, not as silence.
import type { AccountConfig } from '../config/schema.ts';

export const PLATFORM_FIELDS = [
  'mode',
  'agent_id',
  'verification_token',
  'encrypt_key',
  'token',
  'encoding_aes_key',
  'card_template_id',
  'app_token',
  'signing_secret',
  'api_key',
] as const;
export type PlatformField = (typeof PLATFORM_FIELDS)[number];

/** One problem per platform-specific field the account sets but `platform` does not use. */
export function foreignFields(
  account: AccountConfig,
  platform: string,
  uses: readonly PlatformField[],
): string[] {
  return PLATFORM_FIELDS.filter((field) => !uses.includes(field) && account[field] !== undefined).map(
    (field) => `${field}: not used by ${platform}`,
  );
}
