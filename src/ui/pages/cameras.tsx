import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type Camera, type Counts, type LineRule, type Pt, type Rule, type ZoneRule } from '../api.js';
import { Badge, Card, Empty, ErrorNote } from '../components.js';
import { usePoll } from '../hooks.js';
import { CountHistory } from './count-history.js';
import { RuleEditor, type Mode } from './rule-editor.js';

function hashCamera(): string | null {
  const q = location.hash.split('?')[1];
  return q ? new URLSearchParams(q).get('camera') : null;
}

export function Cameras() {
  const cams = usePoll(() => api.get<Camera[]>('/video/cameras'), 2000);
  const [selected, setSelected] = useState<string | null>(hashCamera());
  const [error, setError] = useState<string | null>(null);
  const [form, setForm] = useState({ camera_id: '', source: '', loop: true });

  useEffect(() => {
    if (!selected && cams.data && cams.data.length > 0) setSelected(cams.data[0]!.camera_id);
  }, [cams.data, selected]);
  // A link to #/cameras?camera=<id> while this page is shown selects that camera.
  useEffect(() => {
    const on = () => setSelected(hashCamera() ?? selected);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, [selected]);

  const add = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const cam = await api.json<Camera>('POST', '/video/cameras', form);
      setForm({ camera_id: '', source: '', loop: form.loop });
      setSelected(cam.camera_id);
      cams.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const remove = async (id: string) => {
    if (!confirm(`Remove camera ${id} with its lines, zones and counts?`)) return;
    setError(null);
    try {
      await api.del(`/video/cameras/${encodeURIComponent(id)}`);
      if (selected === id) setSelected(null);
      cams.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <div class="stack">
      <Card title="Cameras">
        <ErrorNote error={cams.error} />
        {cams.data?.length === 0 && <Empty>No camera yet.</Empty>}
        {cams.data && cams.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Camera</th>
                <th class="wide-only">Source</th>
                <th>Status</th>
                <th>fps</th>
                <th class="wide-only">Frames</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {cams.data.map((c) => (
                <tr key={c.camera_id} class={c.camera_id === selected ? 'current' : ''}>
                  <td>
                    <button class="link" onClick={() => setSelected(c.camera_id)}>
                      {c.camera_id}
                    </button>
                  </td>
                  <td class="detail wide-only">{c.source}</td>
                  <td>
                    <Badge ok={c.is_running}>{c.status ?? (c.is_running ? 'running' : 'stopped')}</Badge>
                    {c.last_error && <div class="muted">{c.last_error}</div>}
                  </td>
                  <td>{c.fps.toFixed(1)}</td>
                  <td class="wide-only">{c.frame_count}</td>
                  <td>
                    <button class="danger" onClick={() => void remove(c.camera_id)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <form class="inline" onSubmit={(e) => void add(e)}>
          <input placeholder="camera id" name="camera_id" value={form.camera_id} onInput={(e) => setForm({ ...form, camera_id: e.currentTarget.value })} required />
          <input placeholder="rtsp://… , /path/to/file.mp4 or 0" name="source" class="grow" value={form.source} onInput={(e) => setForm({ ...form, source: e.currentTarget.value })} required />
          <label>
            <input type="checkbox" checked={form.loop} onChange={(e) => setForm({ ...form, loop: e.currentTarget.checked })} /> loop files
          </label>
          <button type="submit">Add camera</button>
        </form>
        <ErrorNote error={error} />
      </Card>
      {selected && cams.data?.some((c) => c.camera_id === selected) && <CameraDetail key={selected} cameraId={selected} />}
    </div>
  );
}

/** Snapshot refreshed every second: fetched as a blob so a failed refresh keeps the last frame. */
function useSnapshot(cameraId: string): { url: string | null; error: string | null } {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    let current: string | null = null;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      try {
        // No frame yet (a camera still starting): wait rather than ask for a snapshot that is a 404.
        const cam = await api.get<Camera>(`/video/cameras/${encodeURIComponent(cameraId)}`);
        if (cam.frame_count === 0) throw new Error(`no frame from ${cameraId} yet (${cam.status ?? 'starting'})`);
        const blob = await api.blob(`/video/cameras/${encodeURIComponent(cameraId)}/snapshot`);
        if (!alive) return;
        const next = URL.createObjectURL(blob);
        setUrl(next);
        if (current) URL.revokeObjectURL(current);
        current = next;
        setError(null);
      } catch (err) {
        if (alive) setError(errorText(err));
      }
      if (alive) timer = setTimeout(() => void tick(), 1000);
    };
    void tick();
    return () => {
      alive = false;
      clearTimeout(timer);
      if (current) URL.revokeObjectURL(current);
    };
  }, [cameraId]);
  return { url, error };
}

function CameraDetail({ cameraId }: { cameraId: string }) {
  const base = `/video/cameras/${encodeURIComponent(cameraId)}`;
  const snap = useSnapshot(cameraId);
  const rules = usePoll(async () => {
    const [lines, zones] = await Promise.all([api.get<LineRule[]>(`${base}/lines`), api.get<ZoneRule[]>(`${base}/zones`)]);
    return [...lines, ...zones] as Rule[];
  }, 1000);
  const counts = usePoll(() => api.get<Counts>(`${base}/counts`), 1000);
  const [mode, setMode] = useState<Mode>('line');
  const [selected, setSelected] = useState<string | null>(null);
  const [zoneDraft, setZoneDraft] = useState<Pt[]>([]);
  const [labels, setLabels] = useState({ name: '', in_label: 'in', out_label: 'out' });
  const [error, setError] = useState<string | null>(null);

  const act = async (f: () => Promise<unknown>) => {
    setError(null);
    try {
      await f();
    } catch (err) {
      setError(errorText(err));
    }
    rules.reload();
    counts.reload();
  };
  const nextName = (kind: string) => labels.name.trim() || `${kind} ${(rules.data?.filter((r) => r.type === kind).length ?? 0) + 1}`;
  const createLine = (points: [Pt, Pt]) =>
    void act(() => api.json('POST', `${base}/lines`, { name: nextName('line'), in_label: labels.in_label || 'in', out_label: labels.out_label || 'out', points }));
  const createZone = (points: Pt[]) => void act(() => api.json('POST', `${base}/zones`, { name: nextName('zone'), points }));
  // The API has no PATCH for rules: a moved rule is deleted and created again under the same
  // id, name and labels (its counts start again from zero, which the page says).
  const move = (rule: Rule, points: Pt[]) =>
    void act(async () => {
      const kind = rule.type === 'line' ? 'lines' : 'zones';
      await api.del(`${base}/${kind}/${encodeURIComponent(rule.rule_id)}`);
      const body =
        rule.type === 'line'
          ? { rule_id: rule.rule_id, name: rule.name, in_label: rule.in_label, out_label: rule.out_label, hysteresis: rule.hysteresis, points }
          : { rule_id: rule.rule_id, name: rule.name, hysteresis: rule.hysteresis, points };
      await api.json('POST', `${base}/${kind}`, body);
    });
  const removeSelected = () => {
    const rule = rules.data?.find((r) => r.rule_id === selected);
    if (!rule) return;
    setSelected(null);
    void act(() => api.del(`${base}/${rule.type === 'line' ? 'lines' : 'zones'}/${encodeURIComponent(rule.rule_id)}`));
  };

  return (
    <Card title={`Camera ${cameraId}`}>
      <div class="toolbar" role="toolbar">
        {(['line', 'zone', 'select'] as const).map((m) => (
          <button
            key={m}
            class={mode === m ? 'on' : ''}
            aria-pressed={mode === m}
            onClick={() => {
              setMode(m);
              setZoneDraft([]);
            }}
          >
            {m === 'line' ? 'Draw line' : m === 'zone' ? 'Draw zone' : 'Move / select'}
          </button>
        ))}
        <input placeholder="name" aria-label="rule name" value={labels.name} onInput={(e) => setLabels({ ...labels, name: e.currentTarget.value })} />
        <input class="short" aria-label="in label" value={labels.in_label} onInput={(e) => setLabels({ ...labels, in_label: e.currentTarget.value })} />
        <input class="short" aria-label="out label" value={labels.out_label} onInput={(e) => setLabels({ ...labels, out_label: e.currentTarget.value })} />
        {mode === 'zone' && zoneDraft.length >= 3 && (
          <button
            onClick={() => {
              createZone(zoneDraft);
              setZoneDraft([]);
            }}
          >
            Finish zone
          </button>
        )}
        {selected && (
          <button class="danger" onClick={removeSelected}>
            Delete selected
          </button>
        )}
        <button onClick={() => void act(() => api.json('POST', `${base}/counts/reset`, {}))}>Reset counts</button>
      </div>
      <p class="hint">
        {mode === 'line'
          ? 'Press at A, drag to B, release. "In" counts people crossing from the left of A→B to its right (the yellow arrow).'
          : mode === 'zone'
            ? 'Tap each corner; tap the first corner again (or "Finish zone") to close.'
            : 'Drag a line or zone to move it, or a round handle to move a corner. Moving a rule restarts its counts.'}
      </p>
      <ErrorNote error={error} />
      <ErrorNote error={snap.error} />
      <div class="camera-view">
        <RuleEditor
          snapshotUrl={snap.url}
          rules={rules.data ?? []}
          mode={mode}
          selected={selected}
          zoneDraft={zoneDraft}
          setZoneDraft={setZoneDraft}
          select={setSelected}
          createLine={createLine}
          createZone={createZone}
          move={move}
        />
        <div class="counts">
          <h3>Live counts</h3>
          <ErrorNote error={counts.error} />
          {counts.data && !counts.data.tracking && <p class="warn">Counting is unavailable: {counts.data.tracking_detail}</p>}
          {counts.data && counts.data.lines.length + counts.data.zones.length === 0 && <Empty>Draw a line or a zone on the picture.</Empty>}
          <table data-testid="counts">
            <tbody>
              {counts.data?.lines.map((l) => (
                <tr key={l.rule_id} data-rule={l.rule_id}>
                  <th>{l.name}</th>
                  <td>
                    {l.in_label} <b class="count-in">{l.in}</b>
                  </td>
                  <td>
                    {l.out_label} <b class="count-out">{l.out}</b>
                  </td>
                </tr>
              ))}
              {counts.data?.zones.map((z) => (
                <tr key={z.rule_id} data-rule={z.rule_id}>
                  <th>{z.name}</th>
                  <td>
                    inside <b>{z.occupancy}</b>
                  </td>
                  <td>
                    entered {z.entered} · exited {z.exited}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <CountHistory base={base} />
        </div>
      </div>
    </Card>
  );
}
