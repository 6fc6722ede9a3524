import { useRef, useState } from 'preact/hooks';
import type { LineRule, Pt, Rule } from '../api.js';

export type Mode = 'select' | 'line' | 'zone';

/** What a finished gesture asks the page to save (the page talks to the API). */
export interface EditorActions {
  createLine(points: [Pt, Pt]): void;
  createZone(points: Pt[]): void;
  /** A rule dragged to new points (the page re-creates it under the same id). */
  move(rule: Rule, points: Pt[]): void;
  select(ruleId: string | null): void;
}

interface Props extends EditorActions {
  snapshotUrl: string | null;
  rules: Rule[];
  mode: Mode;
  selected: string | null;
  zoneDraft: Pt[];
  setZoneDraft(p: Pt[]): void;
}

type Drag = { rule: Rule; vertex: number | null; start: Pt; orig: Pt[]; moved: boolean };

const clamp = (v: number) => Math.min(1, Math.max(0, v));
/** Shortest line the editor accepts, as a fraction of the frame (a click is not a line). */
const MIN_LINE = 0.03;

/**
 * The snapshot with an SVG layer over it, in the image's own pixel space. Pointer events
 * cover mouse, pen and touch alike. Points are kept as fractions of the frame, as the API
 * stores them.
 */
export function RuleEditor(p: Props) {
  const svgRef = useRef<SVGSVGElement>(null);
  const [size, setSize] = useState<[number, number]>([416, 416]);
  const [lineDraft, setLineDraft] = useState<[Pt, Pt] | null>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [hover, setHover] = useState<Pt | null>(null);
  const [W, H] = size;

  const norm = (e: PointerEvent): Pt => {
    const r = svgRef.current!.getBoundingClientRect();
    return [clamp((e.clientX - r.left) / r.width), clamp((e.clientY - r.top) / r.height)];
  };
  const px = (q: Pt): [number, number] => [q[0] * W, q[1] * H];

  const onDown = (e: PointerEvent) => {
    const q = norm(e);
    svgRef.current!.setPointerCapture(e.pointerId);
    if (p.mode === 'line') {
      setLineDraft([q, q]);
      return;
    }
    if (p.mode === 'zone') return; // zones add a corner on pointerup (a tap)
    const target = (e.target as Element).closest('[data-rule]');
    if (!target) {
      p.select(null);
      return;
    }
    const rule = p.rules.find((r) => r.rule_id === target.getAttribute('data-rule'));
    if (!rule) return;
    const vertex = target.getAttribute('data-vertex');
    p.select(rule.rule_id);
    setDrag({ rule, vertex: vertex === null ? null : Number(vertex), start: q, orig: rule.points.map((x) => [...x] as Pt), moved: false });
  };

  const onMove = (e: PointerEvent) => {
    const q = norm(e);
    setHover(q);
    if (lineDraft) setLineDraft([lineDraft[0], q]);
    if (drag) {
      const dx = q[0] - drag.start[0];
      const dy = q[1] - drag.start[1];
      const pts = drag.orig.map((o, i): Pt => {
        if (drag.vertex !== null) return i === drag.vertex ? q : o;
        return [clamp(o[0] + dx), clamp(o[1] + dy)];
      });
      setDrag({ ...drag, rule: { ...drag.rule, points: pts } as Rule, moved: drag.moved || Math.hypot(dx, dy) > 0.005 });
    }
  };

  const onUp = (e: PointerEvent) => {
    const q = norm(e);
    if (lineDraft) {
      const [a] = lineDraft;
      setLineDraft(null);
      if (Math.hypot(q[0] - a[0], q[1] - a[1]) >= MIN_LINE) p.createLine([a, q]);
      return;
    }
    if (p.mode === 'zone') {
      const first = p.zoneDraft[0];
      // A tap on the first corner closes the polygon.
      if (first && p.zoneDraft.length >= 3 && Math.hypot((q[0] - first[0]) * W, (q[1] - first[1]) * H) < 14) {
        p.createZone(p.zoneDraft);
        p.setZoneDraft([]);
      } else p.setZoneDraft([...p.zoneDraft, q]);
      return;
    }
    if (drag) {
      if (drag.moved) p.move(drag.rule, drag.rule.points);
      setDrag(null);
    }
  };

  const shown = p.rules.map((r) => (drag && drag.rule.rule_id === r.rule_id ? drag.rule : r));
  const stroke = Math.max(2, W / 200);
  const font = Math.max(12, W / 32);

  return (
    <div class="editor">
      {p.snapshotUrl ? (
        <img src={p.snapshotUrl} alt="Camera snapshot" onLoad={(e) => setSize([e.currentTarget.naturalWidth, e.currentTarget.naturalHeight])} />
      ) : (
        <div class="nosnap" style={{ aspectRatio: `${W} / ${H}` }}>
          waiting for a frame…
        </div>
      )}
      <svg
        ref={svgRef}
        viewBox={`0 0 ${W} ${H}`}
        class={`overlay mode-${p.mode}`}
        onPointerDown={onDown}
        onPointerMove={onMove}
        onPointerUp={onUp}
        onPointerLeave={() => setHover(null)}
        data-testid="rule-canvas"
      >
        <defs>
          <marker id="arrow-in" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" fill="#ffd400" />
          </marker>
          <marker id="arrow-out" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="4" markerHeight="4" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" fill="#b8f5ff" />
          </marker>
        </defs>
        {shown.map((r) =>
          r.type === 'line' ? (
            <LineShape key={r.rule_id} rule={r} px={px} stroke={stroke} font={font} selected={p.selected === r.rule_id} W={W} H={H} />
          ) : (
            <g key={r.rule_id} class={`zone ${p.selected === r.rule_id ? 'selected' : ''}`}>
              <polygon data-rule={r.rule_id} points={r.points.map((q) => px(q).join(',')).join(' ')} stroke-width={stroke} />
              <text x={px(r.points[0]!)[0] + 6} y={px(r.points[0]!)[1] + font} font-size={font} class="label">
                {r.name} · {r.counts.occupancy} inside
              </text>
              {p.selected === r.rule_id && r.points.map((q, i) => <circle key={i} data-rule={r.rule_id} data-vertex={i} cx={px(q)[0]} cy={px(q)[1]} r={stroke * 3} class="handle" />)}
            </g>
          ),
        )}
        {lineDraft && <line class="draft" x1={px(lineDraft[0])[0]} y1={px(lineDraft[0])[1]} x2={px(lineDraft[1])[0]} y2={px(lineDraft[1])[1]} stroke-width={stroke} />}
        {p.mode === 'zone' && p.zoneDraft.length > 0 && (
          <g class="draft">
            <polyline points={[...p.zoneDraft, ...(hover ? [hover] : [])].map((q) => px(q).join(',')).join(' ')} stroke-width={stroke} fill="none" />
            {p.zoneDraft.map((q, i) => (
              <circle key={i} cx={px(q)[0]} cy={px(q)[1]} r={stroke * 2.5} class={i === 0 ? 'first' : ''} />
            ))}
          </g>
        )}
      </svg>
    </div>
  );
}

/** Labels grow away from the arrow tip they name, so they never cover its head. */
const anchor = (dx: number) => (dx > 0.35 ? 'start' : dx < -0.35 ? 'end' : 'middle');

/**
 * A counting line A→B with its direction: "in" is a crossing from the left of A→B to its
 * right as the image is seen (the API's rule), so the in arrow points along the right-hand
 * normal and the out arrow the other way.
 */
function LineShape({ rule, px, stroke, font, selected, W, H }: { rule: LineRule; px: (q: Pt) => [number, number]; stroke: number; font: number; selected: boolean; W: number; H: number }) {
  const [a, b] = [px(rule.points[0]!), px(rule.points[1]!)];
  const mx = (a[0] + b[0]) / 2;
  const my = (a[1] + b[1]) / 2;
  const len = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
  const nx = -(b[1] - a[1]) / len;
  const ny = (b[0] - a[0]) / len;
  const arrow = Math.max(font * 2.5, Math.min(W, H) * 0.1);
  const gap = font * (Math.abs(nx) > 0.35 ? 0.4 : 0.9);
  const tip = (sign: 1 | -1, extra: number): [number, number] => [mx + sign * nx * (arrow + extra), my + sign * ny * (arrow + extra)];
  return (
    <g class={`line ${selected ? 'selected' : ''}`}>
      <line data-rule={rule.rule_id} x1={a[0]} y1={a[1]} x2={b[0]} y2={b[1]} stroke-width={stroke} class="body" />
      {/* a wide invisible stroke makes the line easy to grab with a finger */}
      <line data-rule={rule.rule_id} x1={a[0]} y1={a[1]} x2={b[0]} y2={b[1]} stroke-width={stroke * 8} class="grab" />
      <line x1={mx} y1={my} x2={tip(1, 0)[0]} y2={tip(1, 0)[1]} stroke-width={stroke * 1.5} class="arrow in" marker-end="url(#arrow-in)" />
      <line x1={mx} y1={my} x2={tip(-1, 0)[0]} y2={tip(-1, 0)[1]} stroke-width={stroke} class="arrow out" marker-end="url(#arrow-out)" />
      <text x={tip(1, gap)[0]} y={tip(1, gap)[1]} font-size={font} class="label in" text-anchor={anchor(nx)} dominant-baseline="middle">
        {rule.in_label} {rule.counts.in}
      </text>
      <text x={tip(-1, gap)[0]} y={tip(-1, gap)[1]} font-size={font} class="label out" text-anchor={anchor(-nx)} dominant-baseline="middle">
        {rule.out_label} {rule.counts.out}
      </text>
      <text x={a[0]} y={a[1] - font * 0.4} font-size={font * 0.8} class="label end">
        A
      </text>
      <text x={b[0]} y={b[1] - font * 0.4} font-size={font * 0.8} class="label end">
        B
      </text>
      {selected && [a, b].map((q, i) => <circle key={i} data-rule={rule.rule_id} data-vertex={i} cx={q[0]} cy={q[1]} r={stroke * 3} class="handle" />)}
    </g>
  );
}
