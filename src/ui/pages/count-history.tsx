import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Empty, ErrorNote } from '../components.js';
import { usePoll } from '../hooks.js';
import { seriesOf, type Series } from '../count-series.js';

const COLOURS = ['#2f80ed', '#eb5757', '#27ae60', '#f2994a', '#9b51e0', '#56ccf2', '#6fcf97', '#bb6bd9'];

export function CountHistory({ base }: { base: string }) {
  const [bucket, setBucket] = useState('1h');
  const hist = usePoll(() => api.optional<unknown>(`${base}/counts/history?bucket=${bucket}`, '/video/cameras/{camera_id}/counts/history'), 60_000, [bucket]);
  return (
    <div class="history">
      <h3>
        Count history{' '}
        <select aria-label="bucket" value={bucket} onChange={(e) => setBucket(e.currentTarget.value)}>
          <option value="15m">15 min</option>
          <option value="1h">1 hour</option>
          <option value="1d">1 day</option>
        </select>
      </h3>
      <ErrorNote error={hist.error} />
      {hist.data === null && !hist.error && <Empty>This daemon keeps no count history (no /counts/history endpoint).</Empty>}
      {hist.data !== null && <Chart series={seriesOf(hist.data)} />}
    </div>
  );
}

function Chart({ series }: { series: Series }) {
  const list = [...series.entries()].slice(0, COLOURS.length);
  const points = list.flatMap(([, s]) => [...s.entries()]);
  if (points.length === 0) return <Empty>No counts recorded in this period yet.</Empty>;
  const t0 = Math.min(...points.map((p) => p[0]));
  const t1 = Math.max(...points.map((p) => p[0]));
  const vmax = Math.max(1, ...points.map((p) => p[1]));
  const W = 400;
  const H = 160;
  const x = (t: number) => (t1 === t0 ? W / 2 : ((t - t0) / (t1 - t0)) * (W - 40) + 30);
  const y = (v: number) => H - 20 - (v / vmax) * (H - 30);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label="count history">
        <line x1={30} y1={H - 20} x2={W - 10} y2={H - 20} class="axis" />
        <text x={2} y={y(vmax) + 4} class="tick">
          {vmax}
        </text>
        <text x={30} y={H - 4} class="tick">
          {new Date(t0).toLocaleString()}
        </text>
        {list.map(([name, s], i) => (
          <polyline
            key={name}
            fill="none"
            stroke={COLOURS[i]}
            stroke-width={2}
            points={[...s.entries()]
              .sort((a, b) => a[0] - b[0])
              .map(([t, v]) => `${x(t)},${y(v)}`)
              .join(' ')}
          />
        ))}
      </svg>
      <figcaption>
        {list.map(([name], i) => (
          <span key={name} class="legend">
            <i style={{ background: COLOURS[i] }} /> {name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
