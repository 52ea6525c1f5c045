// A reply streamed into an AI card: POST /v1.0/card/instances/createAndDeliver shows a card of the
// account's template in the chat at once (a group's IM_GROUP space, or the user's IM_ROBOT space),
// then PUT /v1.0/card/streaming replaces the template's markdown variable with the answer so far,
// the last time with isFinalize. The template must have a markdown variable named `content`.
import { randomUUID } from 'node:crypto';
import { scrubSecrets } from '../../core/scrub-secrets.ts';
import type { ChannelAccount, InboundMessage, ReplyStream } from '../types.ts';
import { type DingTalkOpenApi } from './open-api.ts';
import { PlatformError } from '../platform-http.ts';
import { replyContextOf } from './robot-message.ts';
import type { DingTalkAccount } from './account.ts';

/** The card template's variable the answer streams into. */
export const CARD_CONTENT_KEY = 'content';

function deliveryOf(message: InboundMessage, robotCode: string): Record<string, unknown> {
  if (message.chatType === 'group') {
    return {
      openSpaceId: `dtv1.card//IM_GROUP.${message.chatId}`,
      imGroupOpenSpaceModel: { supportForward: true },
      imGroupOpenDeliverModel: { robotCode },
    };
  }
  return {
    openSpaceId: `dtv1.card//IM_ROBOT.${message.chatId}`,
    imRobotOpenSpaceModel: { supportForward: true },
    imRobotOpenDeliverModel: { spaceType: 'IM_ROBOT', robotCode },
  };
}

export async function startAiCard(
  api: DingTalkOpenApi,
  account: ChannelAccount<DingTalkAccount>,
  message: InboundMessage,
  templateId: string,
  signal?: AbortSignal,
): Promise<ReplyStream> {
  const robotCode = replyContextOf(message)?.robotCode ?? account.config.app_id ?? '';
  const outTrackId = randomUUID();
  const what = 'dingtalk card/instances/createAndDeliver';
  const answer = await api.call(
    account,
    what,
    'POST',
    '/v1.0/card/instances/createAndDeliver',
    {
      cardTemplateId: templateId,
      outTrackId,
      cardData: { cardParamMap: { [CARD_CONTENT_KEY]: '' } },
      userIdType: 1,
      ...deliveryOf(message, robotCode),
    },
    signal,
  );
  const results = (answer['result'] as { deliverResults?: unknown } | undefined)?.deliverResults;
  const failed = Array.isArray(results)
    ? (results as Array<{ success?: unknown; errorMsg?: unknown }>).find((result) => result.success === false)
    : undefined;
  if (answer['success'] === false || failed) {
    const why = scrubSecrets(String(failed?.errorMsg ?? 'not delivered'), api.secretsOf(account)).slice(
      0,
      200,
    );
    throw new PlatformError(`${what}: the card was not delivered (${why})`);
  }
  const stream = async (content: string, isFinalize: boolean): Promise<void> => {
    await api.call(
      account,
      'dingtalk card/streaming',
      'PUT',
      '/v1.0/card/streaming',
      {
        outTrackId,
        guid: randomUUID(),
        key: CARD_CONTENT_KEY,
        content,
        isFull: true,
        isFinalize,
        isError: false,
      },
      signal,
    );
  };
  return {
    update: (text) => stream(text, false),
    finish: (text) => stream(text, true),
  };
}
