// One node of the graph: its name, type and id, marked as the first node, coloured by the relation
// it took in the shown run (its time on hover), and red with the server's message when it is wrong.
import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { t } from '../../../i18n/index.ts';
import type { NodeRun } from './run-state.ts';

export interface ChainNodeData extends Record<string, unknown> {
  nodeId: string;
  type: string;
  name: string;
  first: boolean;
  run: NodeRun | undefined;
  error: string | undefined;
}

export type ChainFlowNode = Node<ChainNodeData, 'chain'>;

/** The colour class of a node's outcome: failure wins, then the first relation it took. */
export function outcomeOf(run: NodeRun | undefined): string {
  if (!run) return 'none';
  if (run.running) return 'running';
  if (run.error !== undefined || run.relations.includes('Failure')) return 'failure';
  const relation = run.relations[0];
  if (relation === undefined) return 'none';
  if (relation === 'Success' || relation === 'True' || relation === 'False') return relation.toLowerCase();
  return 'other';
}

export function timingText(run: NodeRun): string {
  const ms = Math.round(run.durationMs * 10) / 10;
  const times = run.count > 1 ? t('graph.overRuns', { count: run.count }) : '';
  return t('graph.timing', { relations: run.relations.join(', ') || t('graph.noRelation'), ms, times });
}

export function ChainNode({ data, selected }: NodeProps<ChainFlowNode>) {
  const outcome = outcomeOf(data.run);
  const classes = ['graph-node', `outcome-${outcome}`];
  if (selected) classes.push('selected');
  if (data.error) classes.push('has-error');
  const title = data.run && !data.run.running ? `${data.nodeId}: ${timingText(data.run)}` : undefined;
  return (
    <div
      class={classes.join(' ')}
      data-node-id={data.nodeId}
      data-outcome={outcome}
      data-relations={data.run?.relations.join(' ') ?? ''}
      title={title}
    >
      <Handle type="target" position={Position.Left} aria-label={t('graph.into', { id: data.nodeId })} />
      <div class="graph-node-head">
        <span class="graph-node-name">{data.name || data.nodeId}</span>
        {data.first && <span class="graph-node-first">{t('graph.first')}</span>}
      </div>
      <div class="graph-node-type mono">{data.type}</div>
      <div class="graph-node-id mono muted">{data.nodeId}</div>
      {data.run && (
        <div class="graph-node-run">
          {data.run.running
            ? t('graph.nodeRunning')
            : (data.run.relations.length > 0 ? data.run.relations : [t('graph.noneTaken')]).map(
                (relation) => (
                  <span key={relation} class="graph-node-relation">
                    {relation}
                  </span>
                ),
              )}
          {title && <span class="graph-node-timing">{Math.round(data.run.durationMs * 10) / 10} ms</span>}
        </div>
      )}
      {data.error && (
        <div class="graph-node-error" role="alert">
          {data.error}
        </div>
      )}
      <Handle type="source" position={Position.Right} aria-label={t('graph.outOf', { id: data.nodeId })} />
    </div>
  );
}
