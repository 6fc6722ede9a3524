import { api, apiVersion } from '../api.js';
import { Card, ErrorNote } from '../components.js';
import { usePoll } from '../hooks.js';

interface HwProfile {
  name: string;
  description: string;
  detected_by: string | null;
  execution_providers: string[];
  intra_op_threads: number;
  ffmpeg: { binary: string; hwaccel: string; path?: string; device?: string };
}

/** /admin/version when the daemon has it, else the version the OpenAPI document carries. */
async function version(): Promise<Record<string, unknown>> {
  const v = await api.optional<Record<string, unknown>>('/admin/version', '/admin/version');
  return v ?? { version: await apiVersion() };
}

export function Settings() {
  const config = usePoll(() => api.get<Record<string, Record<string, unknown>>>('/admin/config'), 0);
  const hw = usePoll(() => api.get<HwProfile>('/admin/hw-profile'), 0);
  const ver = usePoll(version, 0);
  return (
    <div class="grid">
      <Card title="Version">
        <ErrorNote error={ver.error} />
        {ver.data && <KeyValues data={ver.data} />}
      </Card>
      <Card title="Hardware profile">
        <ErrorNote error={hw.error} />
        {hw.data && (
          <KeyValues
            data={{
              profile: hw.data.name,
              description: hw.data.description,
              'chosen by': hw.data.detected_by ?? 'server.hw_profile',
              'execution providers': hw.data.execution_providers.join(' → '),
              'intra-op threads': hw.data.intra_op_threads || 'shared out',
              'ffmpeg decoder': `${hw.data.ffmpeg.hwaccel} (${hw.data.ffmpeg.binary} ffmpeg)`,
            }}
          />
        )}
      </Card>
      <ErrorNote error={config.error} />
      {config.data &&
        Object.entries(config.data).map(([module, settings]) => (
          <Card key={module} title={`Configuration: ${module}`}>
            <KeyValues data={settings} />
          </Card>
        ))}
      <p class="muted">Read only: change settings in the YAML file named by VIGIL_CONFIG or through VIGIL_* variables, then restart the daemon.</p>
    </div>
  );
}

function KeyValues({ data }: { data: Record<string, unknown> }) {
  return (
    <table class="kv">
      <tbody>
        {Object.entries(data).map(([k, v]) => (
          <tr key={k}>
            <th>{k}</th>
            <td class="detail">{typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
