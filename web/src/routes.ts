// The pages of the UI, in the order of the navigation. One entry per page: its first URL segment,
// its label and icon in the navigation, and its component (which gets the rest of the URL's
// segments). Add a page by adding an entry here.
import type { ComponentType } from 'preact';
import type { IconName } from './ui/icons.tsx';
import { AgentsPage } from './pages/agents/agents-page.tsx';
import { ChatPage } from './pages/chat/chat-page.tsx';
import { ChannelsPage } from './pages/channels/channels-page.tsx';
import { CronPage } from './pages/cron/cron-page.tsx';
import { MonitorPage } from './pages/monitor/monitor-page.tsx';
import { RulesPage } from './pages/rules/rules-page.tsx';
import { SettingsPage } from './pages/settings/settings-page.tsx';
import { SkillsPage } from './pages/skills/skills-page.tsx';
import { UsagePage } from './pages/usage/usage-page.tsx';
import { LogsPage } from './pages/logs/logs-page.tsx';
import { UsersPage } from './pages/users/users-page.tsx';

export interface PageProps {
  /** The URL segments after the page's own: /ui/chat/main/s1 gives ['main', 's1']. */
  params: string[];
}

export interface RouteEntry {
  path: string;
  label: string;
  icon: IconName;
  page: ComponentType<PageProps>;
}

export const ROUTES: RouteEntry[] = [
  { path: 'chat', label: 'Chat', icon: 'chat', page: ChatPage },
  { path: 'agents', label: 'Agents', icon: 'agents', page: AgentsPage },
  { path: 'rules', label: 'Rule chains', icon: 'rules', page: RulesPage },
  { path: 'skills', label: 'Skills', icon: 'skills', page: SkillsPage },
  { path: 'cron', label: 'Cron', icon: 'cron', page: CronPage },
  { path: 'channels', label: 'Channels', icon: 'channels', page: ChannelsPage },
  { path: 'usage', label: 'Usage', icon: 'usage', page: UsagePage },
  { path: 'monitor', label: 'Monitor', icon: 'monitor', page: MonitorPage },
  { path: 'logs', label: 'Logs', icon: 'logs', page: LogsPage },
  { path: 'users', label: 'Users', icon: 'agents', page: UsersPage },
  { path: 'settings', label: 'Settings', icon: 'settings', page: SettingsPage },
];

/** The page /ui/ opens. */
export const HOME = 'chat';
