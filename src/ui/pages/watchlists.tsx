import { useEffect, useState } from 'preact/hooks';
import { api, errorText, type FaceResult, type WatchlistMember } from '../api.js';
import { Card, Empty, ErrorNote, when } from '../components.js';
import { usePoll } from '../hooks.js';
import { ImageOverlay, useObjectUrl } from '../image-overlay.js';

interface WatchlistSummary {
  name: string;
  size: number;
}
interface MembersPage {
  name: string;
  total: number;
  offset: number;
  limit: number;
  identities: WatchlistMember[];
}
interface Enrolled {
  identity_id: string;
  label: string;
  watchlist: string;
  samples: number;
  created: boolean;
  face: FaceResult;
}

const PAGE = 25;

export function Watchlists() {
  const lists = usePoll(() => api.get<{ watchlists: WatchlistSummary[] }>('/watchlist'), 10_000);
  const [current, setCurrent] = useState('default');
  const [offset, setOffset] = useState(0);
  const members = usePoll(() => api.get<MembersPage>(`/watchlist/${encodeURIComponent(current)}?offset=${offset}&limit=${PAGE}`), 10_000, [current, offset]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => setOffset(0), [current]);
  const refresh = () => {
    lists.reload();
    members.reload();
  };
  const remove = async (m: WatchlistMember) => {
    if (!confirm(`Delete ${m.label} (${m.identity_id}) and all ${m.samples} samples?`)) return;
    setError(null);
    try {
      await api.del(`/watchlist/${encodeURIComponent(m.identity_id)}`);
      refresh();
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <div class="grid wide-first">
      <Card title="Watchlists">
        <ErrorNote error={lists.error} />
        <div class="tabs">
          {lists.data?.watchlists.map((w) => (
            <button key={w.name} class={w.name === current ? 'on' : ''} onClick={() => setCurrent(w.name)}>
              {w.name} <span class="muted">({w.size})</span>
            </button>
          ))}
        </div>
        <ErrorNote error={members.error} />
        <ErrorNote error={error} />
        {members.data && members.data.total === 0 && <Empty>Nobody is enrolled in “{current}” yet.</Empty>}
        {members.data && members.data.total > 0 && (
          <>
            <table data-testid="identities">
              <thead>
                <tr>
                  <th>Label</th>
                  <th>Identity id</th>
                  <th>Samples</th>
                  <th>Enrolled</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {members.data.identities.map((m) => (
                  <tr key={m.identity_id}>
                    <td>{m.label}</td>
                    <td class="detail">{m.identity_id}</td>
                    <td>{m.samples}</td>
                    <td class="nowrap">{when(m.enrolled_at)}</td>
                    <td>
                      <button class="danger" onClick={() => void remove(m)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div class="pager">
              <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
                ‹ Previous
              </button>
              <span>
                {offset + 1}–{offset + members.data.identities.length} of {members.data.total}
              </span>
              <button disabled={offset + PAGE >= members.data.total} onClick={() => setOffset(offset + PAGE)}>
                Next ›
              </button>
            </div>
          </>
        )}
      </Card>
      <EnrolForm
        watchlist={current}
        onEnrolled={(w) => {
          setCurrent(w);
          refresh();
        }}
      />
    </div>
  );
}

function EnrolForm({ watchlist, onEnrolled }: { watchlist: string; onEnrolled: (w: string) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const preview = useObjectUrl(file);
  const [result, setResult] = useState<Enrolled | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setError(null);
    setResult(null);
    setBusy(true);
    try {
      for (const k of ['watchlist_name', 'identity_id']) if (form.get(k) === '') form.delete(k);
      const r = await api.form<Enrolled>('/watchlist/enroll', form);
      setResult(r);
      onEnrolled(r.watchlist);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Enrol a person">
      <form class="stacked" onSubmit={(e) => void submit(e)}>
        <label>
          Photo <input type="file" name="image" accept="image/jpeg,image/png" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </label>
        <label>
          Label <input name="label" required maxLength={256} />
        </label>
        <label>
          Watchlist <input name="watchlist_name" placeholder="default" value={watchlist} key={watchlist} />
        </label>
        <label>
          Identity id <input name="identity_id" placeholder="generated when empty; an existing id adds a sample" />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Enrolling…' : 'Enrol'}
        </button>
      </form>
      <ErrorNote error={error} />
      {result && (
        <p class="ok" role="status">
          {result.created ? 'Enrolled' : 'Added a sample to'} {result.label} ({result.identity_id}) in {result.watchlist}: {result.samples} sample(s).
        </p>
      )}
      {preview && (
        <ImageOverlay src={preview} alt="Uploaded photo">
          {() => {
            const b = result?.face.detection.bbox;
            return b ? <rect x={b[0]} y={b[1]} width={b[2] - b[0]} height={b[3] - b[1]} class="facebox" /> : null;
          }}
        </ImageOverlay>
      )}
    </Card>
  );
}
