// The visual chain editor (loaded on the Rule chains page only: this module and @xyflow/react, run
// on preact/compat, are a chunk of their own). The graph edits the same JSON draft as the JSON tab:
// every change is written back to it, so saving, the unsaved-changes guard and the secrets' ***
// placeholders work as they do for the text.
import '@xyflow/react/dist/style.css';
import '../../../styles/graph.css';
import './svg-tabindex.ts';
import {
  applyEdgeChanges,
  applyNodeChanges,
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type AriaLabelConfig,
  type Edge,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { t, useLang, type MessageKey } from '../../../i18n/index.ts';
import { nodeText } from '../../../i18n/node-texts.ts';
import { useStore } from '../../../store.ts';
import { theme } from '../../../ui/theme.ts';
import type { RunLog } from '../rule-types.ts';
import {
  addNode,
  chainText,
  connect,
  connectionKey,
  connectionsOf,
  errorTarget,
  firstNodeId,
  freeNodeId,
  layout,
  moveNodes,
  parseChain,
  removeParts,
  setChainInfo,
  setFirstNode,
  updateNode,
  type ChainDoc,
  type ChainProblem,
  type Point,
} from './chain-model.ts';
import { ChainPanel } from './chain-panel.tsx';
import { defaultConfiguration, relationsOf, useComponents, type ComponentInfo } from './components.ts';
import { ChainNode, type ChainFlowNode } from './graph-node.tsx';
import { NodePanel } from './node-panel.tsx';
import { Palette } from './palette.tsx';
import { RelationDialog } from './relation-dialog.tsx';
import { applyLiveEvent, runViewOfLog, useChainEvents, type RunView } from './run-state.ts';

export interface ChainGraphProps {
  text: string;
  onText: (text: string) => void;
  isNew: boolean;
  /** The saved chain whose runs to watch live; null for a new chain. */
  chainId: string | null;
  /** The server's last validation error, shown at the node or connection it names. */
  problem: string | null;
  /** The run log shown below the editor, drawn on the graph. */
  runLog: RunLog | null;
  /** Selects and shows a node ("Go to node" on the error). */
  focus: { nodeId: string; seq: number } | null;
}

const NODE_TYPES = { chain: ChainNode };

const PROBLEMS: Record<ChainProblem, MessageKey> = {
  json: 'graph.bad.json',
  ruleChain: 'graph.bad.ruleChain',
  nodeId: 'graph.bad.nodeId',
  connections: 'graph.bad.connections',
};

/** React Flow's own texts (its controls' labels, the keyboard help it reads out) in the UI's language. */
function flowLabels(): AriaLabelConfig {
  return {
    'node.a11yDescription.default': t('flow.nodeHelp'),
    'node.a11yDescription.keyboardDisabled': t('flow.nodeHelpKeys'),
    'node.a11yDescription.ariaLiveMessage': ({ direction, x, y }) =>
      t('flow.moved', {
        direction: ['up', 'down', 'left', 'right'].includes(direction)
          ? t(`flow.dir.${direction as 'up' | 'down' | 'left' | 'right'}`)
          : direction,
        x,
        y,
      }),
    'edge.a11yDescription.default': t('flow.edgeHelp'),
    'controls.ariaLabel': t('flow.controls'),
    'controls.zoomIn.ariaLabel': t('flow.zoomIn'),
    'controls.zoomOut.ariaLabel': t('flow.zoomOut'),
    'controls.fitView.ariaLabel': t('flow.fitView'),
    'controls.interactive.ariaLabel': t('flow.interactive'),
    'minimap.ariaLabel': t('flow.minimap'),
    'handle.ariaLabel': t('flow.handle'),
  };
}

type Built = Omit<ChainFlowNode, 'measured' | 'selected'>;

function Graph(props: ChainGraphProps) {
  const { text, onText, isNew, chainId, problem, runLog, focus } = props;
  const parsed = useMemo(() => parseChain(text), [text]);
  const components = useComponents();
  const flow = useReactFlow<ChainFlowNode, Edge>();
  const canvas = useRef<HTMLDivElement>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [pending, setPending] = useState<{ fromId: string; toId: string } | null>(null);
  const [run, setRun] = useState<RunView | null>(null);
  const [nodes, setNodes] = useState<ChainFlowNode[]>([]);
  const [edges, setEdges] = useState<Edge[]>([]);
  const [focusForm, setFocusForm] = useState(0);
  const colorMode = useStore(theme);
  const language = useLang();
  const ariaLabels = useMemo(flowLabels, [language]);
  const live = useChainEvents(chainId, (event) => setRun((view) => applyLiveEvent(view, event)));

  useEffect(() => {
    if (runLog) setRun(runViewOfLog(runLog));
  }, [runLog?.id]);

  const doc = 'doc' in parsed ? parsed.doc : null;
  const target = problem ? errorTarget(problem) : undefined;
  const write = (next: ChainDoc) => onText(chainText(next));

  // The flow's nodes and edges follow the draft; what only the flow knows (sizes, selection) is kept.
  useEffect(() => {
    if (!doc) return;
    const points = layout(doc);
    const first = firstNodeId(doc);
    const built: Built[] = doc.metadata.nodes.map((node) => ({
      id: node.id,
      type: 'chain',
      position: points.get(node.id) ?? { x: 0, y: 0 },
      ariaLabel: t('graph.nodeAria', {
        node: node.name ? `${node.name} (${node.id})` : node.id,
        type: node.type,
      }),
      data: {
        nodeId: node.id,
        type: node.type,
        name: node.name ?? '',
        first: node.id === first,
        run: run?.nodes[node.id],
        error: target?.kind === 'node' && target.nodeId === node.id ? target.detail : undefined,
      },
    }));
    setNodes((previous) => {
      const before = new Map(previous.map((node) => [node.id, node]));
      return built.map((node) => {
        const old = before.get(node.id);
        return {
          ...node,
          ...(old?.measured ? { measured: old.measured } : {}),
          selected: node.id === selectedId,
        };
      });
    });
    setEdges((previous) => {
      const selected = new Set(previous.filter((edge) => edge.selected).map((edge) => edge.id));
      return connectionsOf(doc).map((connection, index) => {
        const id = connectionKey(connection, index);
        const taken = run?.nodes[connection.fromId]?.relations.includes(connection.type) === true;
        const wrong =
          target?.kind === 'connection' &&
          target.fromId === connection.fromId &&
          target.toId === connection.toId;
        return {
          id,
          source: connection.fromId,
          target: connection.toId,
          label: connection.type,
          ariaLabel: t('graph.edgeAria', {
            from: connection.fromId,
            to: connection.toId,
            relation: connection.type,
          }),
          markerEnd: { type: MarkerType.ArrowClosed },
          className: [taken ? 'taken' : '', wrong ? 'has-error' : ''].join(' ').trim(),
          selected: selected.has(id),
          data: { relation: connection.type },
        };
      });
    });
  }, [text, run, problem, selectedId, language]);

  // A save error at a node selects it, so its form shows the problem under the field.
  useEffect(() => {
    if (target?.kind === 'node' && doc?.metadata.nodes.some((node) => node.id === target.nodeId))
      setSelectedId(target.nodeId);
  }, [problem]);

  useEffect(() => {
    if (!focus) return;
    setSelectedId(focus.nodeId);
    void flow.fitView({ nodes: [{ id: focus.nodeId }], duration: 0, maxZoom: 1.2 });
  }, [focus?.seq]);

  // A node just added: its form's first field takes the focus.
  useEffect(() => {
    if (focusForm > 0) document.getElementById('graph-node-name')?.focus();
  }, [focusForm]);

  if (!doc)
    return (
      <div class="alert alert-error" role="alert">
        {'error' in parsed ? t(PROBLEMS[parsed.error], { detail: parsed.detail ?? '' }) : ''}{' '}
        {t('graph.fixJson')}
      </div>
    );

  const info = (type: string) => components?.find((component) => component.type === type);
  const selected = doc.metadata.nodes.find((node) => node.id === selectedId);

  const centre = (): Point => {
    const box = canvas.current?.getBoundingClientRect();
    const at = box
      ? flow.screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 })
      : { x: 40, y: 40 };
    // A new node takes the first free place from the middle of the view: to the right, then below.
    const points = [...layout(doc).values()];
    const free = (x: number, y: number) =>
      !points.some((other) => Math.abs(other.x - x) < 230 && Math.abs(other.y - y) < 110);
    const start = { x: Math.round(at.x - 90), y: Math.round(at.y - 40) };
    let point = start;
    for (let step = 0; step < 60 && !free(point.x, point.y); step++)
      point = { x: start.x + (step % 4) * 250 + 250, y: start.y + Math.floor(step / 4) * 130 };
    return point;
  };

  const add = (component: ComponentInfo) => {
    const id = freeNodeId(doc, component.type);
    const node = {
      id,
      type: component.type,
      name: nodeText(component.label) || component.type,
      configuration: defaultConfiguration(component),
    };
    write(addNode(doc, node, centre()));
    setSelectedId(id);
    setFocusForm((count) => count + 1);
    // Once drawn, the view takes in the whole chain, the new node included.
    window.requestAnimationFrame(() => void flow.fitView({ maxZoom: 1.2, duration: 0 }));
  };

  const onNodesChange = (changes: NodeChange<ChainFlowNode>[]) => {
    setNodes((current) => applyNodeChanges(changes, current));
    // The user's selection (a click, Enter on a focused node, a click on the pane) opens or closes the
    // node's form. (onSelectionChange would also fire on every render with the flow's stale selection.)
    const chosen = changes.filter((change) => change.type === 'select');
    const picked = chosen.find((change) => change.selected);
    if (picked) setSelectedId(picked.id);
    else if (chosen.some((change) => change.id === selectedId)) setSelectedId(null);
    // A drag's end or a move with the arrow keys is written to the draft as layoutX / layoutY.
    const moves = new Map<string, Point>();
    for (const change of changes)
      if (change.type === 'position' && change.position && change.dragging !== true)
        moves.set(change.id, change.position);
    if (moves.size > 0) write(moveNodes(doc, moves));
  };

  const onEdgesChange = (changes: EdgeChange[]) => setEdges((current) => applyEdgeChanges(changes, current));

  const remove = (nodeIds: Set<string>, edgeIds: Set<string>) => {
    if (nodeIds.size === 0 && edgeIds.size === 0) return;
    write(removeParts(doc, nodeIds, edgeIds));
    if (selectedId && nodeIds.has(selectedId)) setSelectedId(null);
  };

  return (
    <div class="graph-editor">
      <Palette components={components} onAdd={add} />
      <div class="graph-canvas" ref={canvas} data-live={live ? 'true' : 'false'}>
        <ReactFlow<ChainFlowNode, Edge>
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          colorMode={colorMode}
          ariaLabelConfig={ariaLabels}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onNodeDragStop={(_event, _node, moved) =>
            write(moveNodes(doc, new Map(moved.map((node) => [node.id, node.position]))))
          }
          onConnect={(connection) => setPending({ fromId: connection.source, toId: connection.target })}
          onDelete={({ nodes: gone, edges: cut }) =>
            remove(new Set(gone.map((node) => node.id)), new Set(cut.map((edge) => edge.id)))
          }
          deleteKeyCode={['Delete']}
          fitView
          fitViewOptions={{ maxZoom: 1.2 }}
          minZoom={0.2}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
        {run && (
          <div class="graph-run-status" role="status" data-run-status={run.status}>
            {run.status === 'running'
              ? t('graph.running')
              : `${run.status === 'success' ? t('graph.succeeded') : t('graph.failed')}${run.durationMs !== undefined ? t('graph.in', { ms: Math.round(run.durationMs) }) : ''}`}
          </div>
        )}
      </div>
      {selected ? (
        <NodePanel
          key={selected.id}
          doc={doc}
          node={selected}
          info={info(selected.type)}
          isFirst={firstNodeId(doc) === selected.id}
          error={target?.kind === 'node' && target.nodeId === selected.id ? target : undefined}
          onUpdate={(previousId, next) => {
            write(updateNode(doc, previousId, next));
            if (next.id !== previousId) setSelectedId(next.id);
          }}
          onConnect={(fromId, toId, relation) => write(connect(doc, fromId, toId, relation))}
          onRemoveConnections={(keys) => remove(new Set(), keys)}
          onMakeFirst={() => write(setFirstNode(doc, selected.id))}
          onDelete={() => remove(new Set([selected.id]), new Set())}
          onClose={() => setSelectedId(null)}
        />
      ) : (
        <ChainPanel doc={doc} isNew={isNew} onChange={(change) => write(setChainInfo(doc, change))} />
      )}
      <RelationDialog
        pending={pending}
        relations={relationsOf(
          info(doc.metadata.nodes.find((node) => node.id === pending?.fromId)?.type ?? ''),
        )}
        onClose={() => setPending(null)}
        onConnect={(relation) => {
          if (pending) write(connect(doc, pending.fromId, pending.toId, relation));
          setPending(null);
        }}
      />
    </div>
  );
}

export default function ChainGraph(props: ChainGraphProps) {
  return (
    <ReactFlowProvider>
      <Graph {...props} />
    </ReactFlowProvider>
  );
}
