import { api, type Camera, type Component, type Counts, type Health } from '../api.js';
import { Badge, Card, Empty, ErrorNote } from '../components.js';
import { usePoll, useLiveEvents } from '../hooks.js';
import { EventTable } from './event-table.js';

export function Overview() {
  const health = usePoll(() => api.get<Health>('/admin/health'), 5000);
  const models = usePoll(() => api.get<Component[]>('/admin/models'), 30000);
  const cams = usePoll(async () => {
    const list = await api.get<Camera[]>('/video/cameras');
    const counts = await Promise.all(list.map((c) => api.get<Counts>(`/video/cameras/${encodeURIComponent(c.camera_id)}/counts`).catch(() => null)));
    return list.map((c, i) => ({ cam: c, counts: counts[i] ?? null }));
  }, 2000);
  const { events, live, error } = useLiveEvents('', 15);

  return (
    <div class="grid">
      <Card title="Health" actions={health.data && <Badge ok={health.data.healthy}>{health.data.healthy ? 'healthy' : 'degraded'}</Badge>}>
        <ErrorNote error={health.error} />
        {health.data && (
          <table>
            <tbody>
              {Object.entries(health.data.modules).map(([m, ok]) => (
                <tr key={m}>
                  <th>{m}</th>
                  <td>
                    <Badge ok={ok}>{ok ? 'ok' : 'down'}</Badge>
                  </td>
                  <td class="detail">{health.data!.details[m]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>

      <Card title="Cameras">
        <ErrorNote error={cams.error} />
        {cams.data && cams.data.length === 0 && (
          <Empty>
            No camera yet: add one on the <a href="#/cameras">Cameras</a> page.
          </Empty>
        )}
        {cams.data && cams.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Camera</th>
                <th>Status</th>
                <th>fps</th>
                <th>Counts</th>
              </tr>
            </thead>
            <tbody>
              {cams.data.map(({ cam, counts }) => (
                <tr key={cam.camera_id}>
                  <td>
                    <a href={`#/cameras?camera=${encodeURIComponent(cam.camera_id)}`}>{cam.camera_id}</a>
                  </td>
                  <td>
                    <Badge ok={cam.is_running}>{cam.status ?? (cam.is_running ? 'running' : 'stopped')}</Badge>
                  </td>
                  <td>{cam.fps.toFixed(1)}</td>
                  <td class="detail">
                    {counts?.lines.map((l) => (
                      <div key={l.rule_id}>
                        {l.name}: {l.in_label} {l.in} · {l.out_label} {l.out}
                      </div>
                    ))}
                    {counts?.zones.map((z) => (
                      <div key={z.rule_id}>
                        {z.name}: inside {z.occupancy} (entered {z.entered}, exited {z.exited})
                      </div>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>

      <Card title="Latest events" actions={<Badge ok={live}>{live ? 'live' : 'offline'}</Badge>}>
        <ErrorNote error={error} />
        <EventTable events={events} compact />
      </Card>

      <Card title="Models">
        <ErrorNote error={models.error} />
        {models.data && (
          <table>
            <thead>
              <tr>
                <th>Component</th>
                <th>Loaded</th>
                <th>Model files and licences</th>
              </tr>
            </thead>
            <tbody>
              {models.data.map((c) => (
                <tr key={c.name}>
                  <th>
                    {c.name}
                    <div class="muted">{c.module}</div>
                  </th>
                  <td>
                    <Badge ok={c.loaded}>{c.loaded ? 'yes' : 'no'}</Badge>
                  </td>
                  <td class="detail">
                    {c.models?.map((m) => (
                      <div key={m.file}>
                        {m.file} — <span class="licence">{m.license}</span>
                        {m.provider ? ` · ${m.provider}` : ''}
                      </div>
                    ))}
                    {!c.loaded && c.reason && <div class="muted">{c.reason}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </div>
  );
}
