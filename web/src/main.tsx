// Entry of the web UI bundle.
import { render } from 'preact';
import { App } from './app.tsx';
import { interceptLinks } from './router.ts';
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import './styles/layout.css';
import './styles/chat.css';
import './styles/chat-tools.css';
import './styles/agents.css';
import './styles/memory.css';
import { initTheme } from './ui/theme.ts';

initTheme();
const root = document.getElementById('app');
if (root) {
  interceptLinks(root);
  render(<App />, root);
}
