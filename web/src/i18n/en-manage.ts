// English texts of the management pages (setup, settings). Placeholders are {name}; zh-manage.ts
// must have every key (the compiler checks).
export const enManage = {
  'setup.aria': 'First-run setup',
  'setup.welcome': 'Welcome to Agent Service',
  'setup.proof': 'The model answered in {ms} ms: “{reply}”',
  'setup.passwordsDiffer': 'The two passwords differ.',
  'setup.healthy': 'healthy',
  'setup.notAnswering': 'not answering /health',
  'setup.provider.aria': 'Model provider',
  'setup.provider.text':
    '1. Connect a model provider (any OpenAI-compatible API). It is tried with a short live completion before it is saved.',
  'setup.baseUrl': 'Base URL',
  'setup.model': 'Model',
  'setup.apiKey': 'API key',
  'setup.trying': 'Trying it…',
  'setup.testSave': 'Test and save',
  'setup.skipNow': 'Skip for now',
  'setup.password.aria': 'Admin password',
  'setup.password.text': '2. Choose the password of the admin user (at least 8 characters).',
  'setup.newAdminPassword': 'New admin password',
  'setup.repeatPassword': 'Repeat the password',
  'setup.setPassword': 'Set password',
  'setup.auth.aria': 'Authentication',
  'setup.auth.text':
    '3. Require sign-in (recommended): without it, anyone who can reach this address can use your agents, read conversations and change the configuration.',
  'setup.requireSignIn': 'Require sign-in',
  'setup.continue': 'Continue',
  'setup.telegram.aria': 'Chat platform',
  'setup.telegram.text':
    '4. Optional: connect a Telegram bot (token from @BotFather). New people who write to it get a code you approve on the Channels page.',
  'setup.tgToken': 'Telegram bot token',
  'setup.tgBase': 'Bot API address (optional, for a proxy)',
  'setup.connecting': 'Connecting…',
  'setup.connectBot': 'Connect the bot',
  'setup.skip': 'Skip',
  'setup.done.aria': 'Done',
  'setup.server': 'Server:',
  'setup.openAt': 'Open the UI at',
  'setup.startChatting': 'Start chatting',
} as const;

export type ManageKey = keyof typeof enManage;
