import type { ComponentChildren } from 'preact';

/** The daemon's error message, shown where the action was taken (role=alert for tests and screen readers). */
export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Card({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header>
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

export function Badge({ ok, children }: { ok: boolean | null; children: ComponentChildren }) {
  return <span class={`badge ${ok === null ? 'neutral' : ok ? 'ok' : 'bad'}`}>{children}</span>;
}

export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted">{children}</p>;
}
