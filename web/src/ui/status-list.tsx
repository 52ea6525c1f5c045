// A chain's load status as a badge, and the list entry of the Agents and Rules pages: a link with a
// title, a muted line under it and the badge.
import type { ComponentChildren } from 'preact';
import { t } from '../i18n/index.ts';
import type { ChainStatus } from '../types.ts';

export function LoadBadge({ status }: { status: ChainStatus }) {
  const problems = status.problems ?? [];
  if (status.loaded && problems.length > 0)
    return (
      <span class="badge badge-warn" title={problems.join('\n')}>
        {problems.length === 1 ? t('ui.problem1') : t('ui.problems', { count: problems.length })}
      </span>
    );
  return status.loaded ? (
    <span class="badge badge-ok">{t('ui.loaded')}</span>
  ) : (
    <span class="badge badge-error" title={status.error}>
      {t('ui.loadError')}
    </span>
  );
}

export interface StatusListItemProps {
  href: string;
  active: boolean;
  /** The data-* attribute that names the entry (data-agent, data-chain). */
  data: Record<`data-${string}`, string>;
  title: string;
  sub: ComponentChildren;
  status: ChainStatus;
}

export function StatusListItem({ href, active, data, title, sub, status }: StatusListItemProps) {
  return (
    <li>
      <a
        class={active ? 'list-item active' : 'list-item'}
        href={href}
        aria-current={active ? 'page' : undefined}
        {...data}
      >
        <span class="list-item-main">
          <span class="list-item-title">{title}</span>
          <span class="muted list-item-sub">{sub}</span>
        </span>
        <LoadBadge status={status} />
      </a>
    </li>
  );
}
