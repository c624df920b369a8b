/**
 * Statechart diagrams (issue 8 item 5): an XState v5 machine as Mermaid `stateDiagram-v2` text
 * (every state, region, transition, guard, action and delay, by name) or as Stately-importable
 * JSON (the machine's config; inline guards and actions by name, factories dropped). Used by
 * `warpstate units <kind> --diagram`. The structure is read from the live state nodes
 * (`machine.root`): XState's `toJSON()` loses function guards and inline actions.
 */
import type { AnyStateMachine } from 'xstate';

/** A state node as the exporter reads it: names only, no functions. */
interface NodeView {
  /** XState's node id (`machine.child.grandchild`), unique in the machine. */
  readonly id: string;
  readonly key: string;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** Id of the initial child of a compound node. */
  readonly initial?: string;
  readonly states: Record<string, NodeView>;
  /** Event and delayed (`after`) transitions, in XState's order (first enabled one wins). */
  readonly transitions: readonly Edge[];
  /** Eventless (`always`) transitions. */
  readonly always: readonly Edge[];
  readonly entry: readonly string[];
  readonly exit: readonly string[];
}

/** One transition: target node ids (none = stays, a targetless transition), event, guard, actions. */
interface Edge {
  readonly targets: readonly string[];
  readonly event: string;
  /** `after <delay>` transitions keep their delay (a name from `setup({ delays })`, or ms). */
  readonly delay?: string;
  readonly guard?: string;
  readonly actions: readonly string[];
}

/**
 * A name for a guard: a string or `{ type }` (named in `setup({ guards })`), a higher-order
 * guard as `and(a, b)` / `or(...)` / `not(a)`, an inline function by its name.
 */
function guardName(g: unknown): string | undefined {
  if (g === undefined || g === null) return undefined;
  if (typeof g === 'string') return g;
  if (typeof g === 'function') {
    const inner = (g as { guards?: unknown[] }).guards;
    const name = g.name || 'inline';
    return Array.isArray(inner) ? `${name}(${inner.map((x) => guardName(x) ?? 'inline').join(', ')})` : name;
  }
  if (typeof g === 'object' && 'type' in g) return String((g as { type: unknown }).type);
  return 'inline';
}

/**
 * A name for an action: a string or `{ type }` (named in `setup({ actions })`), a built-in
 * action creator by its kind (`assign`, `raise`, `sendTo`...), an inline function by its name.
 * Undefined for the raise/cancel XState adds to a state's entry/exit for its `after` timers
 * (the delayed transition itself is drawn instead).
 */
function actionName(a: unknown): string | undefined {
  if (typeof a === 'string') return a;
  if (typeof a === 'function') {
    const f = a as { type?: unknown; id?: unknown; sendId?: unknown; name: string };
    if (f.type === 'xstate.raise' && typeof f.id === 'string' && f.id.startsWith('xstate.after')) return undefined;
    if (f.type === 'xstate.cancel' && typeof f.sendId === 'string' && f.sendId.startsWith('xstate.after')) return undefined;
    if (typeof f.type === 'string') return f.type.replace(/^xstate\./, '');
    return f.name || 'inline';
  }
  if (typeof a === 'object' && a !== null && 'type' in a) return String((a as { type: unknown }).type);
  return 'inline';
}

function edgeOf(t: any): Edge {
  const actions = ((t.actions ?? []) as unknown[]).map(actionName).filter((n): n is string => n !== undefined);
  const guard = guardName(t.guard);
  return {
    targets: ((t.target ?? []) as { id: string }[]).map((n) => n.id),
    event: String(t.eventType ?? ''),
    ...(t.delay !== undefined ? { delay: String(t.delay) } : {}),
    ...(guard !== undefined ? { guard } : {}),
    actions,
  };
}

/** Reads a live XState v5 state node (`machine.root`) and its children into a {@link NodeView}. */
function nodeView(node: any): NodeView {
  const states: Record<string, NodeView> = {};
  for (const [k, child] of Object.entries(node.states as Record<string, unknown>)) states[k] = nodeView(child);
  const names = (list: unknown[]) => list.map(actionName).filter((n): n is string => n !== undefined);
  const initialTarget = (node.initial?.target ?? []) as { id: string }[];
  return {
    id: node.id,
    key: node.key,
    type: node.type,
    ...(initialTarget.length > 0 ? { initial: initialTarget[0]!.id } : {}),
    states,
    transitions: ([...(node.transitions as Map<string, unknown[]>).values()].flat() as unknown[]).map(edgeOf),
    always: ((node.always ?? []) as unknown[]).map(edgeOf),
    entry: names(node.entry ?? []),
    exit: names(node.exit ?? []),
  };
}

/** Mermaid ids: letters, digits and `_` only. */
function mid(id: string): string {
  return id.replace(/^#/, '').replace(/[^A-Za-z0-9_]/g, '_');
}

/** `event [guard] / action, action`; `after <delay>` and `always` stand for the event. */
function label(t: Edge, always: boolean): string {
  const event = always ? 'always' : t.delay !== undefined ? `after ${t.delay}` : t.event;
  const guard = t.guard !== undefined ? ` [${t.guard}]` : '';
  return `${event}${guard}${t.actions.length > 0 ? ` / ${t.actions.join(', ')}` : ''}`;
}

function renderNode(node: NodeView, indent: string, lines: string[]): void {
  const children = Object.values(node.states);
  for (const child of children) {
    const id = mid(child.id);
    const kind = child.type === 'parallel' ? ' (parallel)' : '';
    if (Object.keys(child.states).length > 0) {
      lines.push(`${indent}state "${child.key}${kind}" as ${id} {`);
      renderRegions(child, `${indent}  `, lines);
      lines.push(`${indent}}`);
    } else {
      lines.push(`${indent}state "${child.key}" as ${id}`);
    }
    entryExit(child, indent, lines);
    if (child.type === 'final') lines.push(`${indent}${id} --> [*]`);
  }
  if (node.type !== 'parallel' && node.initial !== undefined) lines.push(`${indent}[*] --> ${mid(node.initial)}`);
  for (const child of children) transitionsOf(child, indent, lines);
}

/**
 * Entry and exit actions: a description line inside a simple state's box; a note beside a
 * composite state (Mermaid allows only a label on those).
 */
function entryExit(node: NodeView, indent: string, lines: string[]): void {
  const parts = [...(node.entry.length > 0 ? [`entry / ${node.entry.join(', ')}`] : []), ...(node.exit.length > 0 ? [`exit / ${node.exit.join(', ')}`] : [])];
  if (parts.length === 0) return;
  const id = mid(node.id);
  if (Object.keys(node.states).length > 0) lines.push(`${indent}note right of ${id} : ${parts.join('<br/>')}`);
  else for (const p of parts) lines.push(`${indent}${id} : ${p}`);
}

/** The children of a parallel node are regions, separated by `--`; otherwise plain states. */
function renderRegions(node: NodeView, indent: string, lines: string[]): void {
  if (node.type !== 'parallel') {
    renderNode(node, indent, lines);
    return;
  }
  Object.values(node.states).forEach((region, i) => {
    if (i > 0) lines.push(`${indent}--`);
    const { initial: _none, ...rest } = node;
    renderNode({ ...rest, type: 'compound', states: { [region.key]: region }, transitions: [], always: [] }, indent, lines);
  });
}

/**
 * A node's outgoing transitions, one Mermaid edge per target state: transitions sharing source
 * and target are one edge whose labels are stacked with `<br/>` in XState's order (Mermaid
 * draws only one of several self-loops of a state). A targetless transition (actions only, no
 * state change) is a self-loop.
 */
function transitionsOf(node: NodeView, indent: string, lines: string[]): void {
  const byTarget = new Map<string, string[]>();
  const add = (t: Edge, always: boolean) => {
    for (const target of t.targets.length > 0 ? t.targets : [node.id]) {
      const labels = byTarget.get(target) ?? [];
      labels.push(label(t, always));
      byTarget.set(target, labels);
    }
  };
  for (const t of node.transitions) add(t, false);
  for (const t of node.always) add(t, true);
  for (const [target, labels] of byTarget) lines.push(`${indent}${mid(node.id)} --> ${mid(target)} : ${labels.join('<br/>')}`);
}

/**
 * Mermaid `stateDiagram-v2` text of a machine: composite states as blocks, parallel regions
 * separated by `--`, the root's own transitions (events handled in every state) as self-loops
 * on the root, transitions labelled `event [guard] / action, action` (`after <delay>` for
 * delayed ones, `always` for eventless ones), entry and exit actions as state descriptions (notes
 * beside composite states). State ids are XState's node ids with `.` and `#` as `_`.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const root = nodeView(machine.root);
  const lines = ['stateDiagram-v2'];
  const rootId = mid(root.id);
  lines.push(`  state "${root.key}${root.type === 'parallel' ? ' (parallel)' : ''}" as ${rootId} {`);
  renderRegions(root, '    ', lines);
  lines.push('  }');
  entryExit(root, '  ', lines);
  lines.push(`  [*] --> ${rootId}`);
  transitionsOf(root, '  ', lines);
  return lines.join('\n') + '\n';
}

/**
 * The machine's config (`machine.config`, what was given to `createMachine`) as JSON: Stately
 * Studio's "import from code" takes it as `createMachine(<this JSON>)`, and `createMachine` of
 * the parsed JSON rebuilds the same states and transitions. Named guards, actions and delays
 * stay names; an inline guard or action becomes its name (as in {@link toMermaid}); the
 * context, input and output factories are dropped (they are code, not structure).
 */
export function toStatelyJson(machine: AnyStateMachine): string {
  const replacer = (key: string, v: unknown): unknown => {
    if (typeof v !== 'function') return v;
    if (key === 'context' || key === 'input' || key === 'output') return undefined;
    return key === 'guard' ? guardName(v) : (actionName(v) ?? 'inline');
  };
  return JSON.stringify(machine.config, replacer, 2) + '\n';
}

/** Every state path (dot-separated from the root's children), e.g. `kernels.active`. */
export function statePaths(machine: AnyStateMachine): string[] {
  const out: string[] = [];
  const walk = (node: NodeView, prefix: string) => {
    for (const child of Object.values(node.states)) {
      const path = prefix ? `${prefix}.${child.key}` : child.key;
      out.push(path);
      walk(child, path);
    }
  };
  walk(nodeView(machine.root), '');
  return out;
}
