// Live monitoring: the turns running now across agents and channels (who asked, which agent, the tool
// running, tokens so far), the last finished turns with duration and outcome, chain runs, channel
// connection states and cron fires. Live over the WebSocket event API (every agent); a click on a
// turn opens its trace (model calls, tool calls, nodes).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, currentToken } from '../../api.ts';
import { t, tParts } from '../../i18n/index.ts';
import type { PageProps } from '../../routes.ts';
import { Dialog } from '../../ui/dialog.tsx';
import '../../styles/manage.css';
import type { TraceStep } from '@server/observability/monitor-state.ts';
import type { MonitorSnapshot, TurnSummary } from '@server/resources/monitor/monitor.schema.ts';

// The server's own shapes; a trace's steps typed as the server records them.
type Step = TraceStep;
type Snapshot = MonitorSnapshot;

const seconds = (ms: number | undefined) =>
  ms === undefined ? '—' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
const time = (ms: number) => new Date(ms).toLocaleTimeString();

function Outcome({ status }: { status: string | undefined }) {
  if (status === 'running' || status === undefined)
    return <span class="badge badge-warn">{t('mon.running')}</span>;
  return (
    <span class={status === 'success' ? 'badge badge-ok' : 'badge badge-error'}>
      {status === 'success' ? t('mon.ok') : t('mon.failed')}
    </span>
  );
}

/** Opens the live stream of every agent; calls `onEvent` for each event, reconnecting after a drop. */
function useLiveEvents(onEvent: () => void): boolean {
  const [live, setLive] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    let socket: WebSocket | undefined;
    let retry: number | undefined;
    let stopped = false;
    const open = () => {
      const token = currentToken();
      const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
      socket = new WebSocket(
        `${scheme}://${window.location.host}/api/v1/ws?agentId=*`,
        token ? ['agent-service', `bearer.${token}`] : [],
      );
      socket.onopen = () => setLive(true);
      socket.onmessage = () => handler.current();
      socket.onclose = () => {
        setLive(false);
        if (!stopped) retry = window.setTimeout(open, 2000);
      };
    };
    open();
    return () => {
      stopped = true;
      window.clearTimeout(retry);
      socket?.close();
    };
  }, []);
  return live;
}

function TraceDialog({ turnId, onClose }: { turnId: string | null; onClose: () => void }) {
  const [trace, setTrace] = useState<(TurnSummary & { steps: Step[] }) | null>(null);
  useEffect(() => {
    setTrace(null);
    if (turnId)
      void api<TurnSummary & { steps: Step[] }>(`/monitor/turns/${encodeURIComponent(turnId)}`).then(
        setTrace,
      );
  }, [turnId]);
  return (
    <Dialog title={t('mon.trace')} open={turnId !== null} onClose={onClose} wide>
      {trace === null ? (
        <p class="muted">{t('mon.loading')}</p>
      ) : (
        <div class="stack">
          <p>
            {tParts('mon.t.on', { agent: <strong>{trace.agentId}</strong>, channel: trace.channel })}
            {trace.requester ? t('mon.t.for', { who: trace.requester }) : ''} ·{' '}
            <Outcome status={trace.status} /> · {seconds(trace.durationMs)} ·{' '}
            {t('mon.t.tokens', { input: trace.inputTokens, output: trace.outputTokens })}
            {trace.traceId ? (
              <span class="muted mono">{t('mon.t.traceId', { id: trace.traceId })}</span>
            ) : null}
          </p>
          {trace.error && <p class="node-log-error">{trace.error}</p>}
          <ol class="list" aria-label={t('mon.steps')}>
            {trace.steps.map((step, index) => (
              <li key={index} class="node-log" data-step={step.kind}>
                <div class="node-log-head">
                  <span class="mono muted">+{seconds(step.at)}</span>{' '}
                  {step.kind === 'model' && (
                    <span>
                      {tParts('mon.t.model', {
                        provider: <strong>{step.provider}</strong>,
                        model: step.model,
                      })}{' '}
                      · {seconds(step.durationMs)}
                      {step.firstTokenMs !== undefined
                        ? t('mon.t.firstToken', { time: seconds(step.firstTokenMs) })
                        : ''}
                      {step.inputTokens !== undefined
                        ? t('mon.t.inOut', { input: step.inputTokens, output: step.outputTokens ?? 0 })
                        : ''}
                      {step.finishReason ? ` · ${step.finishReason}` : ''}
                    </span>
                  )}
                  {step.kind === 'tool' && (
                    <span>
                      {tParts('mon.t.tool', { tool: <strong>{step.tool}</strong>, type: step.toolType })} ·{' '}
                      {seconds(step.durationMs)}
                    </span>
                  )}
                  {step.kind === 'node' && (
                    <span>
                      {tParts('mon.t.node', { node: <strong>{step.nodeId}</strong>, type: step.nodeType })} →{' '}
                      {step.relations.join(', ') || '—'} · {seconds(step.durationMs)}
                    </span>
                  )}
                </div>
                {step.kind === 'tool' && <pre class="data-block">{step.args}</pre>}
                {step.kind === 'tool' && step.result !== undefined && (
                  <pre class="data-block">{step.result}</pre>
                )}
                {'error' in step && step.error && <p class="node-log-error">{step.error}</p>}
              </li>
            ))}
          </ol>
        </div>
      )}
    </Dialog>
  );
}

function TurnTable({
  label,
  turns,
  running,
  onOpen,
}: {
  label: string;
  turns: TurnSummary[];
  running: boolean;
  onOpen: (id: string) => void;
}) {
  if (turns.length === 0) return <p class="muted">{running ? t('mon.noRunning') : t('mon.noFinished')}</p>;
  const now = Date.now();
  return (
    <table class="table card" aria-label={label}>
      <thead>
        <tr>
          <th>{t('mon.agent')}</th>
          <th>{t('mon.channel')}</th>
          <th>{t('mon.askedBy')}</th>
          <th>{running ? t('mon.runningTool') : t('mon.outcome')}</th>
          <th>{t('mon.tokens')}</th>
          <th>{running ? t('mon.runningFor') : t('mon.duration')}</th>
        </tr>
      </thead>
      <tbody>
        {turns.map((turn) => (
          <tr key={turn.id} data-turn={turn.id} class="clickable" onClick={() => onOpen(turn.id)}>
            <td data-label={t('mon.agent')}>
              <button type="button" class="btn btn-ghost" aria-label={t('mon.traceOf', { id: turn.id })}>
                {turn.agentId}
              </button>
            </td>
            <td data-label={t('mon.channel')}>{turn.channel}</td>
            <td data-label={t('mon.askedBy')}>{turn.requester ?? <span class="muted">—</span>}</td>
            <td data-label={running ? t('mon.runningTool') : t('mon.outcome')}>
              {running ? (
                (turn.currentTool ?? <span class="muted">{t('mon.thinking')}</span>)
              ) : (
                <Outcome status={turn.status} />
              )}
            </td>
            <td data-label={t('mon.tokens')}>
              {turn.inputTokens} / {turn.outputTokens}
            </td>
            <td data-label={t('mon.duration')}>
              {seconds(running ? now - turn.startedAt : turn.durationMs)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function MonitorPage(_props: PageProps) {
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const pending = useRef<number | undefined>(undefined);
  const load = useCallback(() => {
    void api<Snapshot>('/monitor', { quiet: true }).then(setSnapshot, () => undefined);
  }, []);
  // Events come in bursts (one per streamed token): the snapshot is fetched at most every 250 ms.
  const live = useLiveEvents(() => {
    if (pending.current === undefined)
      pending.current = window.setTimeout(() => ((pending.current = undefined), load()), 250);
  });
  useEffect(() => {
    load();
    const timer = window.setInterval(load, 3000);
    return () => window.clearInterval(timer);
  }, [load]);

  return (
    <div class="page stack">
      <div class="toolbar">
        <h1 class="page-title">{t('mon.title')}</h1>
        <span class="spacer" />
        <span class={live ? 'badge badge-ok' : 'badge badge-warn'} aria-label={t('mon.liveAria')}>
          {live ? t('mon.live') : t('mon.reconnecting')}
        </span>
      </div>
      {snapshot === null ? (
        <p class="muted">{t('mon.loading')}</p>
      ) : (
        <>
          <p class="muted">
            {t('mon.instance', { instance: snapshot.instance, count: snapshot.subscribers['agent'] ?? 0 })}
          </p>
          <section class="stack" aria-label={t('mon.inFlight')}>
            <h2 class="section-title">{t('mon.inFlight')}</h2>
            <TurnTable label={t('mon.runningTurns')} turns={snapshot.inFlight} running onOpen={setOpen} />
          </section>
          <section class="stack" aria-label={t('mon.finishedAria')}>
            <h2 class="section-title">{t('mon.lastFinished')}</h2>
            <TurnTable
              label={t('mon.finishedAria')}
              turns={snapshot.finished}
              running={false}
              onOpen={setOpen}
            />
          </section>
          <section class="stack" aria-label={t('mon.chainRuns')}>
            <h2 class="section-title">{t('mon.chainRuns')}</h2>
            {snapshot.chainRuns.length === 0 ? (
              <p class="muted">{t('mon.noChain')}</p>
            ) : (
              <table class="table card" aria-label={t('mon.chainRuns')}>
                <thead>
                  <tr>
                    <th>{t('mon.chain')}</th>
                    <th>{t('mon.started')}</th>
                    <th>{t('mon.nodes')}</th>
                    <th>{t('mon.outcome')}</th>
                    <th>{t('mon.duration')}</th>
                  </tr>
                </thead>
                <tbody>
                  {snapshot.chainRuns.map((run) => (
                    <tr key={run.id} title={run.error ?? ''}>
                      <td data-label={t('mon.chain')}>{run.chainId}</td>
                      <td data-label={t('mon.started')}>{time(run.startedAt)}</td>
                      <td data-label={t('mon.nodes')}>{run.nodes}</td>
                      <td data-label={t('mon.outcome')}>
                        <Outcome status={run.outcome} />
                      </td>
                      <td data-label={t('mon.duration')}>{seconds(run.durationMs)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section class="stack" aria-label={t('mon.connections')}>
            <h2 class="section-title">{t('mon.channels')}</h2>
            {snapshot.channels.length === 0 ? (
              <p class="muted">{t('mon.noChannel')}</p>
            ) : (
              <ul class="list">
                {snapshot.channels.map((channel) => (
                  <li key={`${channel.platform}/${channel.accountId}`} title={channel.error ?? ''}>
                    <strong>{channel.platform}</strong> / {channel.accountId}:{' '}
                    <span
                      class={
                        channel.state === 'connected'
                          ? 'badge badge-ok'
                          : channel.state === 'error'
                            ? 'badge badge-error'
                            : 'badge'
                      }
                    >
                      {channel.state}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section class="stack" aria-label={t('mon.cronFires')}>
            <h2 class="section-title">{t('mon.cronFires')}</h2>
            {snapshot.cronFires.length === 0 ? (
              <p class="muted">{t('mon.noCron')}</p>
            ) : (
              <ul class="list">
                {snapshot.cronFires.map((fire) => (
                  <li key={fire.turnId}>
                    <button type="button" class="btn btn-ghost" onClick={() => setOpen(fire.turnId)}>
                      {fire.taskId} → {fire.agentId}
                    </button>{' '}
                    {time(fire.startedAt)} <Outcome status={fire.outcome} />
                    {fire.latenessMs !== undefined ? (
                      <span class="muted">{t('mon.late', { ms: fire.latenessMs })}</span>
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      )}
      <TraceDialog turnId={open} onClose={() => setOpen(null)} />
    </div>
  );
}
