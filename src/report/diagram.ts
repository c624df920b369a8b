/**
 * Statechart diagrams (issue 8 item 5): an XState v5 machine as Mermaid `stateDiagram-v2` text
 * (every state, region, transition, guard, action and delay, by name) or as Stately-importable
 * JSON (the machine's config, functions dropped). Used by `warpstate units <kind> --diagram`.
 */
import type { AnyStateMachine } from 'xstate';

/** The JSON definition XState gives of a state node (`machine.toJSON()`), as far as we read it. */
interface NodeJson {
  readonly id: string;
  readonly key: string;
  readonly type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  readonly initial?: { readonly target: readonly string[] };
  readonly states: Record<string, NodeJson>;
  readonly transitions?: readonly TransitionJson[];
  readonly always?: readonly TransitionJson[];
  readonly entry?: readonly unknown[];
  readonly exit?: readonly unknown[];
}

interface TransitionJson {
  readonly target?: readonly string[];
  readonly actions?: readonly unknown[];
  readonly guard?: unknown;
  readonly eventType?: string | null;
  readonly delay?: unknown;
}

/**
 * The plain JSON of a state node: XState's own `toJSON` of the node plus its eventless
 * (`always`) transitions, which that JSON leaves out; children recursively.
 */
function nodeJson(node: any): NodeJson {
  const j = JSON.parse(JSON.stringify(node)) as NodeJson;
  const states: Record<string, NodeJson> = {};
  for (const [k, child] of Object.entries(node.states as Record<string, unknown>)) states[k] = nodeJson(child);
  const always = ((node.always ?? []) as unknown[]).map((t) => JSON.parse(JSON.stringify(t)) as TransitionJson);
  return { ...j, states, always };
}

/** XState's own actions behind `after` delays (raise / cancel of the timer event). */
function isInternal(name: string): boolean {
  return name.startsWith('xstate.');
}

/** A name for an action, guard or delay (XState keeps strings or `{ type }` objects). */
function nameOf(x: unknown): string {
  if (typeof x === 'string') return x;
  if (typeof x === 'number') return String(x);
  if (typeof x === 'object' && x !== null && 'type' in x) return String((x as { type: unknown }).type);
  if (typeof x === 'function') return x.name || 'inline';
  return 'inline';
}

/** Mermaid ids: letters, digits and `_` only. */
function mid(id: string): string {
  return id.replace(/^#/, '').replace(/[^A-Za-z0-9_]/g, '_');
}

function label(t: TransitionJson, always: boolean): string {
  const event = always ? 'always' : t.delay !== undefined ? `after ${nameOf(t.delay)}` : (t.eventType ?? '');
  const guard = t.guard !== undefined ? ` [${nameOf(t.guard)}]` : '';
  const actions = (t.actions ?? []).map(nameOf).filter((n) => !isInternal(n));
  return `${event}${guard}${actions.length > 0 ? ` / ${actions.join(', ')}` : ''}`;
}

function renderNode(node: NodeJson, indent: string, lines: string[]): void {
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
    const entry = (child.entry ?? []).map(nameOf).filter((n) => !isInternal(n));
    const exit = (child.exit ?? []).map(nameOf).filter((n) => !isInternal(n));
    if (entry.length > 0) lines.push(`${indent}${id} : entry / ${entry.join(', ')}`);
    if (exit.length > 0) lines.push(`${indent}${id} : exit / ${exit.join(', ')}`);
    if (child.type === 'final') lines.push(`${indent}${id} --> [*]`);
  }
  const initial = node.initial?.target[0];
  if (node.type !== 'parallel' && initial !== undefined) lines.push(`${indent}[*] --> ${mid(initial)}`);
  for (const child of children) transitionsOf(child, indent, lines);
}

/** The children of a parallel node are regions, separated by `--`; otherwise plain states. */
function renderRegions(node: NodeJson, indent: string, lines: string[]): void {
  if (node.type !== 'parallel') {
    renderNode(node, indent, lines);
    return;
  }
  Object.values(node.states).forEach((region, i) => {
    if (i > 0) lines.push(`${indent}--`);
    renderNode({ ...node, type: 'compound', states: { [region.key]: region }, initial: undefined, transitions: [], always: [] }, indent, lines);
  });
}

function transitionsOf(node: NodeJson, indent: string, lines: string[]): void {
  const id = mid(node.id);
  for (const t of node.transitions ?? []) {
    for (const target of t.target?.length ? t.target : [node.id]) lines.push(`${indent}${id} --> ${mid(target)} : ${label(t, false)}`);
  }
  for (const t of node.always ?? []) {
    for (const target of t.target?.length ? t.target : [node.id]) lines.push(`${indent}${id} --> ${mid(target)} : ${label(t, true)}`);
  }
}

/**
 * Mermaid `stateDiagram-v2` text of a machine: composite states as blocks, parallel regions
 * separated by `--`, the root's own transitions (events handled in every state) as self-loops
 * on the root, transitions labelled `event [guard] / action, action` (`after <delay>` for
 * delayed ones, `always` for eventless ones), entry and exit actions as state descriptions.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const root = nodeJson(machine.root);
  const lines = ['stateDiagram-v2'];
  const rootId = mid(root.id);
  lines.push(`  state "${root.key}${root.type === 'parallel' ? ' (parallel)' : ''}" as ${rootId} {`);
  renderRegions(root, '    ', lines);
  lines.push('  }');
  lines.push(`  [*] --> ${rootId}`);
  transitionsOf(root, '  ', lines);
  return lines.join('\n') + '\n';
}

/**
 * The machine's config as JSON, for Stately's "import from code" (functions such as the
 * context factory are dropped; guards, actions and delays are names).
 */
export function toStatelyJson(machine: AnyStateMachine): string {
  return JSON.stringify(machine.config, (_k, v: unknown) => (typeof v === 'function' ? undefined : v), 2) + '\n';
}

/** Every state path (dot-separated from the root's children), e.g. `kernels.active`. */
export function statePaths(machine: AnyStateMachine): string[] {
  const out: string[] = [];
  const walk = (node: NodeJson, prefix: string) => {
    for (const child of Object.values(node.states)) {
      const path = prefix ? `${prefix}.${child.key}` : child.key;
      out.push(path);
      walk(child, path);
    }
  };
  walk(nodeJson(machine.root), '');
  return out;
}
