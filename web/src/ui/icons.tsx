// Line icons (24x24, stroke currentColor), drawn as SVG paths: no icon font, no inline styles.
const PATHS = {
  chat: 'M4 5h16v11H9l-5 4z',
  agents: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8a7 7 0 0 1 14 0',
  rules: 'M5 6h6M5 12h14M5 18h9M15 4v4M9 10v4M17 16v4',
  skills: 'M12 3l2.5 5.5L20 9l-4 4 1 6-5-3-5 3 1-6-4-4 5.5-.5z',
  cron: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zm0-14v5l3 3',
  channels: 'M4 8h16M4 16h16M9 4l-2 16M17 4l-2 16',
  usage: 'M4 20h16M7 16v-5M12 16V6M17 16v-8',
  logs: 'M5 4h14v16H5zM8 8h8M8 12h8M8 16h5',
  settings:
    'M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9L7 7M17 17l2.1 2.1M4.9 19.1L7 17M17 7l2.1-2.1',
  sun: 'M12 17a5 5 0 1 0 0-10 5 5 0 0 0 0 10zM12 1v2M12 21v2M4.2 4.2l1.4 1.4M18.4 18.4l1.4 1.4M1 12h2M21 12h2M4.2 19.8l1.4-1.4M18.4 5.6l1.4-1.4',
  moon: 'M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z',
  menu: 'M3 6h18M3 12h18M3 18h18',
  plus: 'M12 5v14M5 12h14',
  send: 'M4 12l16-8-6 16-2-6z',
  stop: 'M7 7h10v10H7z',
  copy: 'M9 9h11v11H9zM5 15H4V4h11v1',
  retry: 'M4 4v6h6M20 20v-6h-6M5.5 15a7.5 7.5 0 0 0 13 2M18.5 9a7.5 7.5 0 0 0-13-2',
  trash: 'M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3',
  edit: 'M4 20h4L19 9l-4-4L4 16zM13 7l4 4',
  image: 'M4 5h16v14H4zM4 16l5-5 4 4 2-2 5 5M15 9.5a1.5 1.5 0 1 0 0-.01',
  logout: 'M15 4h4v16h-4M10 8l-4 4 4 4M6 12h11',
  reload: 'M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7',
  folder: 'M3 6h6l2 2h10v11H3z',
  file: 'M6 3h8l4 4v14H6zM14 3v4h4',
  back: 'M15 5l-7 7 7 7',
  tool: 'M14 6a4 4 0 0 0 5 5l-9 9-3-3 9-9a4 4 0 0 0-2-2z',
  monitor: 'M3 12h4l3-7 4 14 3-7h4',
  close: 'M6 6l12 12M18 6L6 18',
  pin: 'M9 4h6l-1 6 3 3H7l3-3zM12 13v8',
  archive: 'M3 5h18v4H3zM5 9v10h14V9M10 13h4',
  download: 'M12 4v11M7 10l5 5 5-5M5 20h14',
  search: 'M10.5 17a6.5 6.5 0 1 0 0-13 6.5 6.5 0 0 0 0 13zM15.5 15.5L20 20',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, label }: { name: IconName; label?: string }) {
  return (
    <svg
      class="icon"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="1.8"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden={label ? undefined : 'true'}
      role={label ? 'img' : undefined}
      aria-label={label}
    >
      <path d={PATHS[name]} />
    </svg>
  );
}

/** A button showing only an icon; `label` names it for assistive technology (and tests). */
export function IconButton({
  icon,
  label,
  title,
  onClick,
  disabled,
  pressed,
}: {
  icon: IconName;
  label: string;
  /** The tooltip, when it should say more or less than the label. */
  title?: string;
  onClick: () => void;
  disabled?: boolean;
  /** A toggle's state (aria-pressed). */
  pressed?: boolean;
}) {
  return (
    <button
      type="button"
      class="icon-btn"
      aria-label={label}
      title={title}
      onClick={onClick}
      disabled={disabled}
      aria-pressed={pressed}
    >
      <Icon name={icon} />
    </button>
  );
}
