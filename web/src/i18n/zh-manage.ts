// 简体中文 of the management pages: the same keys as en-manage.ts.
import type { ManageKey } from './en-manage.ts';

export const zhManage: Record<ManageKey, string> = {
  'setup.aria': '首次设置',
  'setup.welcome': '欢迎使用 Agent Service',
  'setup.proof': '模型在 {ms} 毫秒内作答：“{reply}”',
  'setup.passwordsDiffer': '两次输入的密码不一致。',
  'setup.healthy': '运行正常',
  'setup.notAnswering': '/health 无响应',
  'setup.provider.aria': '模型服务商',
  'setup.provider.text':
    '1. 连接一个模型服务商（任何兼容 OpenAI 的 API）。保存前会先用一次简短的实时补全进行测试。',
  'setup.baseUrl': 'Base URL',
  'setup.model': '模型',
  'setup.apiKey': 'API 密钥',
  'setup.trying': '正在测试…',
  'setup.testSave': '测试并保存',
  'setup.skipNow': '暂时跳过',
  'setup.password.aria': '管理员密码',
  'setup.password.text': '2. 设置 admin 用户的密码（至少 8 个字符）。',
  'setup.newAdminPassword': '新的管理员密码',
  'setup.repeatPassword': '再次输入密码',
  'setup.setPassword': '设置密码',
  'setup.auth.aria': '身份验证',
  'setup.auth.text':
    '3. 要求登录（推荐）：否则任何能访问此地址的人都可以使用你的智能体、查看对话并修改配置。',
  'setup.requireSignIn': '要求登录',
  'setup.continue': '继续',
  'setup.telegram.aria': '聊天平台',
  'setup.telegram.text':
    '4. 可选：连接一个 Telegram 机器人（token 从 @BotFather 获取）。首次给它发消息的人会收到一个配对码，由你在“渠道”页面批准。',
  'setup.tgToken': 'Telegram 机器人 token',
  'setup.tgBase': 'Bot API 地址（可选，用于代理）',
  'setup.connecting': '正在连接…',
  'setup.connectBot': '连接机器人',
  'setup.skip': '跳过',
  'setup.done.aria': '完成',
  'setup.server': '服务器：',
  'setup.openAt': '界面地址：',
  'setup.startChatting': '开始对话',
};
