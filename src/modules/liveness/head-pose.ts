/** Dense-landmark indices (MediaPipe face mesh topology) the pose reads. */
const CHEEK_RIGHT = 234; // the user's right face edge (image left in an unmirrored frame)
const CHEEK_LEFT = 454; // the user's left face edge
const FOREHEAD = 10;
const CHIN = 152;

const deg = (r: number) => (r * 180) / Math.PI;

/**
 * Yaw and pitch in degrees from the 3-D landmarks of a crop whose eye line is horizontal
 * (roll already removed by the ROI). MediaPipe's z has the x scale and grows away from the
 * camera, so the depth difference across the face gives the rotation directly:
 * - yaw: angle of the cheek-to-cheek line in the x-z plane; positive when the user's left
 *   cheek is farther away, i.e. the user turned to THEIR left (nose towards image right);
 * - pitch: angle of the forehead-to-chin line in the y-z plane; positive when the chin
 *   comes forward, i.e. the user tilts the head up.
 * Checked on the shared photos and their mirror images (yaw flips sign within ~2 degrees).
 * Frontal faces read pitch -2..-10, not 0 (the forehead sits behind the chin), which is why
 * the look challenges measure pitch relative to the user's own neutral frame.
 */
export function headPose(crop: Float32Array): { yaw: number; pitch: number } {
  const p = (i: number): [number, number, number] => [crop[i * 3]!, crop[i * 3 + 1]!, crop[i * 3 + 2]!];
  const r = p(CHEEK_RIGHT);
  const l = p(CHEEK_LEFT);
  const top = p(FOREHEAD);
  const chin = p(CHIN);
  return {
    yaw: deg(Math.atan2(l[2] - r[2], l[0] - r[0])),
    pitch: deg(Math.atan2(top[2] - chin[2], chin[1] - top[1])),
  };
}
