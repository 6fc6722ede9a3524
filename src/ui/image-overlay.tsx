import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';

/** A local file as an object URL for previews, revoked when the file changes. */
export function useObjectUrl(file: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!file) return setUrl(null);
    const u = URL.createObjectURL(file);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [file]);
  return url;
}

/**
 * An image with an SVG layer in its own pixel space, so boxes from the API (pixel
 * coordinates of the uploaded image) are drawn where they belong at any display size.
 */
export function ImageOverlay({ src, alt, children }: { src: string; alt: string; children?: (w: number, h: number) => ComponentChildren }) {
  const [size, setSize] = useState<[number, number] | null>(null);
  return (
    <div class="overlay-box">
      <img src={src} alt={alt} onLoad={(e) => setSize([e.currentTarget.naturalWidth, e.currentTarget.naturalHeight])} />
      {size && children && (
        <svg viewBox={`0 0 ${size[0]} ${size[1]}`} class="overlay passive">
          {children(size[0], size[1])}
        </svg>
      )}
    </div>
  );
}
