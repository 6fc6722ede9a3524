import type { VigilEvent } from '../api.js';
import { Empty } from '../components.js';

/** One row per event; the data payload is shown compactly (key=value). */
export function EventTable({ events, compact = false }: { events: VigilEvent[]; compact?: boolean }) {
  if (events.length === 0) return <Empty>No events yet.</Empty>;
  return (
    <table class="events">
      <thead>
        <tr>
          <th>Time</th>
          <th>Type</th>
          {!compact && <th>Source</th>}
          <th>Camera</th>
          <th>Data</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.id} data-type={e.type}>
            <td class="nowrap">{new Date(e.timestamp).toLocaleTimeString()}</td>
            <td>
              <span class={`etype ${e.type}`}>{e.type}</span>
            </td>
            {!compact && <td>{e.source}</td>}
            <td>{e.camera_id ?? '—'}</td>
            <td class="detail">{summary(e.data)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function summary(data: Record<string, unknown>): string {
  return Object.entries(data)
    .filter(([, v]) => v === null || typeof v !== 'object')
    .map(([k, v]) => `${k}=${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(3) : String(v)}`)
    .join(' ');
}
