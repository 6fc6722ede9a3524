/** FNV-1a of a scene's name: mixed into the run's seed so each scene has its own stream of random lines (adding a scene leaves the others' alone). */
export function sceneHash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
