import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Overview } from './pages/overview.js';
import { Cameras } from './pages/cameras.js';
import { Watchlists } from './pages/watchlists.js';
import { Events } from './pages/events.js';
import { Documents } from './pages/documents.js';
import { Liveness } from './pages/liveness.js';
import { Settings } from './pages/settings.js';

const PAGES = [
  { path: 'overview', title: 'Overview', view: Overview },
  { path: 'cameras', title: 'Cameras', view: Cameras },
  { path: 'watchlists', title: 'Watchlists', view: Watchlists },
  { path: 'events', title: 'Events', view: Events },
  { path: 'documents', title: 'Documents', view: Documents },
  { path: 'liveness', title: 'Liveness', view: Liveness },
  { path: 'settings', title: 'Settings', view: Settings },
] as const;

/** Hash routes (#/cameras) so the daemon serves one index.html and reloads land on the same page. */
function currentPath(): string {
  return location.hash.replace(/^#\/?/, '').split('?')[0] || 'overview';
}

function App() {
  const [path, setPath] = useState(currentPath());
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    const on = () => {
      setPath(currentPath());
      setMenuOpen(false);
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  const page = PAGES.find((p) => p.path === path) ?? PAGES[0];
  const View = page.view;
  useEffect(() => {
    document.title = `${page.title} · Vigil`;
  }, [page]);
  return (
    <div class="shell">
      <nav class={menuOpen ? 'open' : ''}>
        <div class="brand">
          <span>Vigil</span>
          <button class="menu" aria-label="Menu" onClick={() => setMenuOpen(!menuOpen)}>
            ☰
          </button>
        </div>
        <ul>
          {PAGES.map((p) => (
            <li key={p.path}>
              <a href={`#/${p.path}`} class={p.path === page.path ? 'active' : ''}>
                {p.title}
              </a>
            </li>
          ))}
          <li>
            <a href="/docs" target="_blank" rel="noopener">
              API docs ↗
            </a>
          </li>
        </ul>
      </nav>
      <main>
        <h1>{page.title}</h1>
        <View />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
