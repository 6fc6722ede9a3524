import { useState } from 'preact/hooks';
import { api, errorText, EVENT_TYPES, type Delivery, type Webhook } from '../api.js';
import { Badge, Card, Empty, ErrorNote, when } from '../components.js';
import { useLiveEvents, usePoll } from '../hooks.js';
import { EventTable } from './event-table.js';

export function Events() {
  const [type, setType] = useState('');
  const [camera, setCamera] = useState('');
  const { events, live, error } = useLiveEvents(type, 200);
  const shown = camera ? events.filter((e) => (e.camera_id ?? '').includes(camera)) : events;
  return (
    <div class="stack">
      <Card title="Events" actions={<Badge ok={live}>{live ? 'live' : 'offline'}</Badge>}>
        <div class="toolbar">
          <select aria-label="event type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">all types</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          <input placeholder="camera id contains…" aria-label="camera filter" value={camera} onInput={(e) => setCamera(e.currentTarget.value)} />
          <span class="muted">{shown.length} shown</span>
        </div>
        <ErrorNote error={error} />
        <div class="scroll">
          <EventTable events={shown} />
        </div>
      </Card>
      <Webhooks />
    </div>
  );
}

function Webhooks() {
  const hooks = usePoll(() => api.get<Webhook[]>('/events/webhooks'), 10_000);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [types, setTypes] = useState<string[]>(['line_crossed']);

  const add = async (e: Event) => {
    e.preventDefault();
    // Kept now: the event's currentTarget is gone once the request has been awaited.
    const formEl = e.currentTarget as HTMLFormElement;
    const f = new FormData(formEl);
    setError(null);
    try {
      const secret = String(f.get('secret') ?? '');
      await api.json('POST', '/events/webhooks', { url: f.get('url'), event_types: types, ...(secret ? { secret } : {}) });
      formEl.reset();
      hooks.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const remove = async (id: string) => {
    setError(null);
    try {
      await api.del(`/events/webhooks/${encodeURIComponent(id)}`);
      if (open === id) setOpen(null);
      hooks.reload();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <Card title="Webhooks">
      <ErrorNote error={hooks.error} />
      {hooks.data?.length === 0 && <Empty>No webhook registered.</Empty>}
      {hooks.data && hooks.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>URL</th>
              <th>Event types</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {hooks.data.map((w) => (
              <tr key={w.id}>
                <td class="detail">
                  {w.url} {w.enabled === false && <Badge ok={false}>disabled</Badge>}
                </td>
                <td class="detail">{w.event_types.join(', ')}</td>
                <td class="nowrap">{when(w.created_at)}</td>
                <td class="nowrap">
                  <button onClick={() => setOpen(open === w.id ? null : w.id)}>{open === w.id ? 'Hide log' : 'Delivery log'}</button>{' '}
                  <button class="danger" onClick={() => void remove(w.id)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && <DeliveryLog webhookId={open} />}
      <form class="stacked" onSubmit={(e) => void add(e)}>
        <label>
          URL <input name="url" type="url" placeholder="https:// address of the receiver" required />
        </label>
        <fieldset class="types">
          <legend>Event types</legend>
          {EVENT_TYPES.map((t) => (
            <label key={t}>
              <input type="checkbox" checked={types.includes(t)} onChange={(e) => setTypes(e.currentTarget.checked ? [...types, t] : types.filter((x) => x !== t))} /> {t}
            </label>
          ))}
        </fieldset>
        <label>
          Secret (optional, signs X-Signature-256) <input name="secret" type="password" autocomplete="off" />
        </label>
        <button type="submit">Add webhook</button>
      </form>
      <ErrorNote error={error} />
    </Card>
  );
}

function DeliveryLog({ webhookId }: { webhookId: string }) {
  const [status, setStatus] = useState('');
  const log = usePoll(
    () =>
      api.get<{ pending: number; deliveries: Delivery[]; disabled_reason: string | null }>(`/events/webhooks/${encodeURIComponent(webhookId)}/deliveries?limit=50${status ? `&status=${status}` : ''}`),
    5000,
    [webhookId, status],
  );
  return (
    <div class="deliveries">
      <h3>
        Deliveries{' '}
        <select aria-label="delivery status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">all</option>
          <option value="failed">failed</option>
          <option value="pending">pending</option>
          <option value="delivered">delivered</option>
        </select>{' '}
        {log.data && <span class="muted">{log.data.pending} pending</span>}
      </h3>
      <ErrorNote error={log.error} />
      {log.data?.disabled_reason && <p class="warn">Disabled: {log.data.disabled_reason}</p>}
      {log.data?.deliveries.length === 0 && <Empty>No delivery yet.</Empty>}
      {log.data && log.data.deliveries.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>Event</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Last answer</th>
            </tr>
          </thead>
          <tbody>
            {log.data.deliveries.map((d) => (
              <tr key={d.delivery_id}>
                <td class="nowrap">{when(d.created_at)}</td>
                <td>{d.event_type}</td>
                <td>
                  <Badge ok={d.status === 'delivered' ? true : d.status === 'failed' ? false : null}>{d.status}</Badge>
                </td>
                <td>{d.attempts}</td>
                <td class="detail">
                  {d.last_status_code ?? ''} {d.last_error ?? ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
